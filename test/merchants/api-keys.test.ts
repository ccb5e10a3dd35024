import { describe, expect, it } from "vitest";
import {
  apiKeyFixedPrefix,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
} from "../../src/merchants/api-keys.js";
import { formatPercent } from "../../src/percent.js";
import { createHmac } from "node:crypto";

describe("generateApiKey", () => {
  it("uses sg_live_ on mainnet and sg_test_ on every other network", () => {
    expect(apiKeyFixedPrefix("mainnet")).toBe("sg_live_");
    for (const network of ["nile", "shasta", "devnet"] as const) {
      expect(apiKeyFixedPrefix(network)).toBe("sg_test_");
      expect(generateApiKey(network).key.startsWith("sg_test_")).toBe(true);
    }
    expect(generateApiKey("mainnet").key.startsWith("sg_live_")).toBe(true);
  });

  it("encodes 32 random bytes as 43 base62 characters and exposes the prefix plus 6 of them", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { key, prefix } = generateApiKey("nile");
      expect(key).toMatch(/^sg_test_[0-9A-Za-z]{43}$/);
      expect(prefix).toBe(key.slice(0, 14));
      expect(looksLikeApiKey(key)).toBe(true);
      seen.add(key);
    }
    expect(seen.size).toBe(200);
  });

  it("uses the whole base62 alphabet", () => {
    const chars = new Set<string>();
    for (let i = 0; i < 100; i++) for (const c of generateApiKey("nile").key.slice(8)) chars.add(c);
    expect(chars.size).toBe(62);
  });
});

describe("hashApiKey", () => {
  it("is lowercase hex HMAC-SHA256 of the key under the pepper", () => {
    const expected = createHmac("sha256", "pepper-pepper-pepper-pepper-pepper")
      .update("sg_test_abc")
      .digest("hex");
    expect(hashApiKey("pepper-pepper-pepper-pepper-pepper", "sg_test_abc")).toBe(expected);
    expect(hashApiKey("another-pepper-another-pepper-xx", "sg_test_abc")).not.toBe(expected);
  });
});

describe("looksLikeApiKey", () => {
  it("rejects anything but a prefix and 43 base62 characters", () => {
    for (const value of [
      "",
      "sg_test_",
      `sg_test_${"a".repeat(42)}`,
      `sg_test_${"a".repeat(44)}`,
      `sg_prod_${"a".repeat(43)}`,
      `sg_test_${"-".repeat(43)}`,
    ]) {
      expect(looksLikeApiKey(value), value).toBe(false);
    }
  });
});

describe("formatPercent (success_rate)", () => {
  it.each([
    [0, 0, "0.00"],
    [0, 5, "0.00"],
    [5, 5, "100.00"],
    [1, 3, "33.33"],
    [2, 3, "66.67"],
    [1, 8, "12.50"],
    [1, 200, "0.50"],
    [1, 20001, "0.00"],
    [1, 19999, "0.01"],
    [123456789012345678n, 123456789012345679n, "100.00"],
  ])("%s of %s is %s", (part, whole, expected) => {
    expect(formatPercent(part, whole)).toBe(expected);
  });
});
