/**
 * The tests' shared waiting and reading helpers: a poll that times out says what it waited for and
 * what it last saw, and the USDT balance reader agrees with what the devnet moved.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Devnet } from "@stablegate/devnet";
import { poll } from "../helpers/poll.js";
import { usdtBalance } from "../helpers/usdt.js";
import { freshDevnet, fund, newAccount } from "../devnet/helpers.js";

/** The error a poll failed with (a poll that returns is a failure of the test). */
const failure = (waiting: Promise<unknown>) =>
  waiting.then(
    (value) => new Error(`the poll returned ${String(value)}`),
    (error: unknown) => error as Error,
  );

describe("poll", () => {
  it("returns the first value that counts as done, running `between` between looks", async () => {
    let looks = 0;
    let between = 0;
    const value = await poll("the third look", () => (++looks >= 3 ? { looks } : undefined), {
      intervalMs: 0,
      between: () => between++,
    });
    expect(value).toEqual({ looks: 3 });
    expect(between).toBe(2);
  });

  it("takes `until` for values that are not done by themselves, and returns the value", async () => {
    let n = 0;
    const value = await poll("n to reach 2", () => n++, { intervalMs: 0, until: (v) => v >= 2 });
    expect(value).toBe(2);
  });

  it("times out naming what it waited for, the last value, the last error and the state", async () => {
    let looks = 0;
    const error = await failure(
      poll(
        "the order to complete",
        () => {
          looks++;
          if (looks % 2 === 0) throw new Error(`node down at look ${looks}`);
          return { status: "pending", look: looks };
        },
        {
          timeoutMs: 150,
          intervalMs: 10,
          until: (v) => v.status === "completed",
          describe: () => "cursor at 12",
        },
      ),
    );
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/^timed out after 150 ms \(\d+ looks\) waiting for the order to complete/);
    expect(error.message).toMatch(/last value: \{ status: 'pending', look: \d+ \}/);
    expect(error.message).toContain("state: cursor at 12");
    if (looks % 2 === 0) expect(error.message).toContain(`last error: node down at look ${looks}`);
    else expect(error.message).not.toContain("last error");
  });

  it("says when every look threw", async () => {
    const error = await failure(
      poll(
        "a reply",
        () => {
          throw new Error("ECONNREFUSED");
        },
        { timeoutMs: 50, intervalMs: 10 },
      ),
    );
    expect(error.message).toContain("no value: every look threw");
    expect(error.message).toContain("last error: ECONNREFUSED");
  });
});

describe("usdtBalance", () => {
  let devnet: Devnet;
  beforeAll(async () => {
    devnet = await freshDevnet();
  });
  afterAll(() => devnet.close());

  it("reads a balance over the devnet's HTTP API, 0 for an address never paid", async () => {
    const a = await newAccount();
    expect(await usdtBalance(devnet, a.base58)).toBe(0n);
    await fund(devnet, a.base58, "0", "12.345678");
    expect(await usdtBalance(devnet, a.base58)).toBe(12_345_678n);
    expect(await usdtBalance(devnet, devnet.faucetAddress)).toBe(1_000_000_000n * 1_000_000n - 12_345_678n);
  });

  it("fails with the node's answer for a contract that is not there", async () => {
    const a = await newAccount();
    await expect(usdtBalance({ url: devnet.url, usdtContract: a.base58 }, a.base58)).rejects.toThrow(
      `balanceOf(${a.base58}) failed: {"result":{"code":"CONTRACT_VALIDATE_ERROR"`,
    );
  });
});
