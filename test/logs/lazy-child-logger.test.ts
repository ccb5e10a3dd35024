/**
 * The request logger Fastify gets (lazyChildLogger): the pino child is made only when the request
 * logs a line its level lets through, and then logs exactly what the child would have, reqId and
 * redaction included.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, lazyChildLogger } from "../../src/logger.js";

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const parent = createLogger({ level, destination });
  let children = 0;
  const child = parent.child;
  // Counts every child made from the parent or its descendants (they inherit this method).
  parent.child = function (this: typeof parent, ...args: Parameters<typeof child>) {
    children++;
    return child.apply(this, args);
  } as typeof parent.child;
  return { parent, lines, children: () => children };
}

describe("lazyChildLogger", () => {
  it("makes no child for a request that logs nothing at the service's level", () => {
    const { parent, lines, children } = capture("warn");
    const log = lazyChildLogger(parent, { reqId: "req-1" });
    log.info("not at this level");
    log.debug({ x: 1 }, "nor this");
    expect(log.isLevelEnabled("info")).toBe(false);
    expect(log.level).toBe("warn");
    expect(children()).toBe(0);
    expect(lines).toEqual([]);
  });

  it("logs through one child with the request's bindings, redaction included", () => {
    const { parent, lines, children } = capture("info");
    const log = lazyChildLogger(parent, { reqId: "req-2" });
    log.info({ apiKey: "sg_live_secret" }, "first");
    log.warn("second");
    expect(children()).toBe(1);
    log.child({ orderId: "o-1" }).error("third");
    expect(lines.map((line) => [line.msg, line.reqId])).toEqual([
      ["first", "req-2"],
      ["second", "req-2"],
      ["third", "req-2"],
    ]);
    expect(lines[0]?.apiKey).toBe("[redacted]");
    expect(lines[2]?.orderId).toBe("o-1");
  });

  it("makes a child at once for a route with a level of its own", () => {
    const { parent, lines } = capture("warn");
    const log = lazyChildLogger(parent, { reqId: "req-3" }, { level: "debug" });
    log.debug("route debug");
    expect(lines.map((line) => line.msg)).toEqual(["route debug"]);
  });
});
