/**
 * What counts as "the database is unavailable" (503 and retry, never 500 or exit), the start-up
 * wait that retries only that, and a loop's short backoff and "resumed" line during an outage.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../../src/db/database-error.js";
import { retryWhileUnavailable } from "../../src/db/wait-for-database.js";
import { createLogger } from "../../src/logger.js";
import { startLoop, UNAVAILABLE_BACKOFF_MS } from "../../src/workers/loop.js";
import { poll } from "../helpers/poll.js";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger({ level: "info", destination }), lines };
}

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("isDatabaseUnavailable", () => {
  it("recognises connection failures, also wrapped, and nothing else", () => {
    for (const error of [
      withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"),
      new AggregateError([withCode("connect ECONNREFUSED ::1:5432", "ECONNREFUSED")], ""),
      new Error("Connection terminated unexpectedly"),
      new Error("Connection terminated due to connection timeout"),
      new Error("timeout exceeded when trying to connect"),
      new Error("Query read timeout"),
      new Error("Client has encountered a connection error and is not queryable"),
      withCode("terminating connection due to administrator command", "57P01"),
      withCode("the database system is starting up", "57P03"),
      withCode("sorry, too many clients already", "53300"),
      withCode("connection failure", "08006"),
      new Error("Failed query: select 1", { cause: withCode("read ECONNRESET", "ECONNRESET") }),
    ]) {
      expect(isDatabaseUnavailable(error), String(error)).toBe(true);
    }
    for (const error of [
      withCode("duplicate key value violates unique constraint", "23505"),
      withCode("password authentication failed for user", "28P01"),
      withCode('database "nope" does not exist', "3D000"),
      new Error("something else"),
      "Connection terminated",
      undefined,
    ]) {
      expect(isDatabaseUnavailable(error), String(error)).toBe(false);
    }
  });
});

describe("retryWhileUnavailable (start-up)", () => {
  it("waits with a growing backoff while the database is unavailable, logging each wait without the host", async () => {
    const { log, lines } = capture();
    let calls = 0;
    const value = await retryWhileUnavailable(
      "start-up",
      async () => {
        calls += 1;
        if (calls < 4) throw withCode("connect ECONNREFUSED 10.1.2.3:5432", "ECONNREFUSED");
        return "up";
      },
      { log, initialDelayMs: 10, maxDelayMs: 40 },
    );
    expect(value).toBe("up");
    const waits = lines.filter((l) => l.msg === "database unavailable at start-up, waiting");
    expect(waits.map((w) => w.attempt)).toEqual([1, 2, 3]);
    expect(waits.map((w) => w.retryInMs as number).every((ms) => ms >= 5 && ms <= 40)).toBe(true);
    expect(JSON.stringify(lines)).not.toContain("10.1.2.3");
    expect(lines.at(-1)).toMatchObject({ msg: "database reachable", attempts: 4 });
  });

  it("does not wait for any other error, and gives up after its timeout", async () => {
    const { log } = capture();
    let calls = 0;
    const wrong = withCode("password authentication failed", "28P01");
    await expect(
      retryWhileUnavailable("start-up", async () => ((calls += 1), Promise.reject(wrong)), { log }),
    ).rejects.toBe(wrong);
    expect(calls).toBe(1);
    const refused = withCode("connect ECONNREFUSED", "ECONNREFUSED");
    await expect(
      retryWhileUnavailable("start-up", () => Promise.reject(refused), {
        log,
        initialDelayMs: 5,
        timeoutMs: 50,
      }),
    ).rejects.toBe(refused);
  });
});

describe("a loop during a database outage", () => {
  it("retries within UNAVAILABLE_BACKOFF_MS whatever its interval, logs the failure once, then that it resumed", async () => {
    const { log, lines } = capture();
    const runs: number[] = [];
    const loop = startLoop({
      name: "outage-probe",
      log,
      // The ordinary backoff after one failure would be 10-20 s; an outage caps it at 4 s.
      intervalMs: 10_000,
      task: async () => {
        runs.push(Date.now());
        if (runs.length === 1) throw new Error("Connection terminated unexpectedly");
        return false;
      },
    });
    try {
      await poll(
        "the loop to log that it resumed",
        () => lines.some((l) => l.msg === "background task resumed"),
        {
          timeoutMs: 20_000,
          intervalMs: 20,
          describe: () => lines,
        },
      );
    } finally {
      await loop.stop();
    }
    expect(runs.length, JSON.stringify(lines)).toBe(2);
    expect(runs[1]! - runs[0]!).toBeLessThanOrEqual(UNAVAILABLE_BACKOFF_MS + 200);
    expect(lines.filter((l) => l.msg === "background task failed: database unavailable")).toHaveLength(1);
    expect(lines.find((l) => l.msg === "background task resumed")).toMatchObject({
      task: "outage-probe",
      failures: 1,
    });
  });
});
