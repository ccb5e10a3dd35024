import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { deriveAddresses, mnemonicToAccountXpub } from "@stablegate/tron/hd";
import {
  WORKER_MIN_COUNT,
  deriveAddressesOffThread,
  derivesOffThread,
  setAddressDeriverIdleMs,
  stopAddressDeriver,
  WORKER_IDLE_MS,
} from "../../src/wallet/address-deriver.js";
import { TEST_MNEMONIC } from "../helpers/config.js";

const run = promisify(execFile);
const xpub = mnemonicToAccountXpub(TEST_MNEMONIC);
const prebuilt = existsSync(
  join(
    dirname(createRequire(import.meta.url).resolve("secp256k1/package.json")),
    "prebuilds",
    `${process.platform}-${process.arch}`,
  ),
);

describe("pool derivation off the event loop", () => {
  it("derives on a worker thread in a real process, equal to deriveAddresses, and reports a bad xpub", async () => {
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "test/wallet/derive-off-thread-process.ts", TEST_MNEMONIC],
      { timeout: 60_000 },
    );
    expect(JSON.parse(stdout.trim())).toEqual({
      offThread: true,
      // The thread loads the native binding for itself (it ships for linux-x64, where CI runs).
      workerBackend: prebuilt ? "libsecp256k1" : "noble",
      mainThread: true,
      ordersEqual: true,
      staticsEqual: true,
      invalid: "invalid xpub",
    });
  }, 90_000);

  it("derives a small first batch on the event loop without starting the thread", async () => {
    expect(await deriveAddressesOffThread(xpub, 7, 20)).toEqual(deriveAddresses(xpub, 7, 20));
    expect(derivesOffThread()).toBe(false);
  });

  it("derives on the worker thread inside the test runner too, equal to deriveAddresses", async () => {
    const derived = await deriveAddressesOffThread(xpub, 100, WORKER_MIN_COUNT + 33);
    expect(derived).toEqual(deriveAddresses(xpub, 100, WORKER_MIN_COUNT + 33));
    expect(derivesOffThread()).toBe(true);
    await expect(deriveAddressesOffThread("xpub-not-really", 0, 1)).rejects.toThrow("invalid xpub");
    // A failed request leaves the worker serving the next one, small or not.
    expect(await deriveAddressesOffThread(xpub, 0, 2, 1)).toEqual(deriveAddresses(xpub, 0, 2, 1));
    await stopAddressDeriver();
    expect(derivesOffThread()).toBe(false);
  });

  it("ends a worker that has been idle, and starts it again for the next large batch", async () => {
    setAddressDeriverIdleMs(300);
    try {
      expect(await deriveAddressesOffThread(xpub, 0, WORKER_MIN_COUNT)).toEqual(
        deriveAddresses(xpub, 0, WORKER_MIN_COUNT),
      );
      expect(derivesOffThread()).toBe(true);
      await expect.poll(() => derivesOffThread(), { timeout: 10_000, interval: 50 }).toBe(false);
      // A small batch stays on the event loop; a large one starts a new thread.
      expect(await deriveAddressesOffThread(xpub, 3, 5)).toEqual(deriveAddresses(xpub, 3, 5));
      expect(derivesOffThread()).toBe(false);
      expect(await deriveAddressesOffThread(xpub, 500, WORKER_MIN_COUNT)).toEqual(
        deriveAddresses(xpub, 500, WORKER_MIN_COUNT),
      );
      expect(derivesOffThread()).toBe(true);
    } finally {
      setAddressDeriverIdleMs(WORKER_IDLE_MS);
      await stopAddressDeriver();
    }
  });
});
