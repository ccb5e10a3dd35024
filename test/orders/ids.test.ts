import { describe, expect, it } from "vitest";
import { isUuid, newId } from "../../src/ids.js";

describe("newId", () => {
  it("is a UUID version 7 with the RFC 9562 variant and the given time in its first 48 bits", () => {
    const at = Date.UTC(2026, 10, 23, 12, 0, 0, 123);
    const id = newId(at);
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe("7");
    expect(["8", "9", "a", "b"]).toContain(id[19]);
    expect(Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16)).toBe(at);
  });

  it("sorts by creation time across milliseconds and never repeats", () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => newId(1_700_000_000_000 + Math.floor(i / 10)));
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 10; i < ids.length; i += 10) {
      expect((ids[i - 1] as string) < (ids[i] as string)).toBe(true);
    }
  });
});
