/**
 * The EVM outbox on Anvil (blocks only when the test mines) and a real database: many transactions
 * in flight on consecutive nonces, a stuck one replaced at a higher fee with the same nonce, a lost
 * one's nonce filled, and a reorganised-out one sent again with the same bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxTransaction, submit, submitMany } from "../../src/outbox/submit.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { evmDevnetForFile } from "../helpers/evm-devnet.js";
import { poll } from "../helpers/poll.js";
import {
  balanceOf,
  ETH,
  nonceOf,
  outboxRows,
  randomAddress,
  startOutboxTest,
  type OutboxTest,
} from "./outbox-helpers.js";

const devnet = evmDevnetForFile();
let testDb: TestDatabase;
let t: OutboxTest;

beforeAll(async () => {
  testDb = await createTestDatabase();
  t = await startOutboxTest(devnet(), testDb);
}, 60_000);
afterAll(async () => {
  await t?.ctx.chains.close();
  await testDb?.drop();
});

const transfer = (ref: string, to: string, value: bigint) => ({
  purpose: "test_transfer",
  ref,
  to,
  value,
  gasLimit: 21_000n,
});

describe("the EVM outbox", () => {
  it("gives 50 submissions at once consecutive nonces, all in flight, and each lands once", async () => {
    const to = randomAddress();
    const start = await nonceOf(devnet(), t.hot);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        submit(t.ctx, "ethereum", transfer(`many-${i}`, to, BigInt(i + 1))),
      ),
    );
    const nonces = results.map((r) => r.transaction.nonce).sort((a, b) => a - b);
    expect(nonces).toEqual(Array.from({ length: 50 }, (_, i) => start + i));
    // All 50 sit in the node's pool before any block: none waited for another's inclusion.
    const pending = await devnet().rpc<string>("eth_getTransactionCount", [t.hot, "pending"]);
    expect(Number(BigInt(pending))).toBe(start + 50);
    // Submitting again is answered from the store: no 51st nonce.
    const again = await submit(t.ctx, "ethereum", transfer("many-7", to, 8n));
    expect(again.created).toBe(false);
    expect(again.transaction.nonce).toBe(results[7]?.transaction.nonce);
    await devnet().mine();
    const pass = await t.pass();
    expect(pass.landed).toBe(50);
    expect(await balanceOf(devnet(), to)).toBe((50n * 51n) / 2n);
    expect(await nonceOf(devnet(), t.hot)).toBe(start + 50);
    const rows = (await outboxRows(t.ctx)).filter((r) => r.ref.startsWith("many-"));
    expect(rows.map((r) => r.state)).toEqual(Array(50).fill("included"));
    // Once the blocks are final, so are the transactions.
    await devnet().mine(devnet().finalityDepth + 1);
    expect((await t.pass()).final).toBe(50);
    expect((await outboxTransaction(t.ctx, "ethereum", "test_transfer", "many-0"))?.state).toBe("final");
  }, 60_000);

  it("stores a batch on consecutive nonces under one lock, idempotent per (purpose, ref)", async () => {
    const to = randomAddress();
    const start = await devnet().rpc<string>("eth_getTransactionCount", [t.hot, "pending"]);
    const inputs = [1n, 2n, 3n].map((n) => transfer(`batch-${n}`, to, n));
    const first = await submitMany(t.ctx, "ethereum", inputs);
    expect(first.map((r) => [r.created, r.transaction.nonce])).toEqual(
      [0, 1, 2].map((n) => [true, Number(BigInt(start)) + n]),
    );
    const again = await submitMany(t.ctx, "ethereum", [transfer("batch-4", to, 4n), ...inputs]);
    expect(again.map((r) => [r.created, r.transaction.nonce])).toEqual([
      [true, Number(BigInt(start)) + 3],
      ...first.map((r) => [false, r.transaction.nonce]),
    ]);
    await devnet().mine();
    expect((await t.pass()).landed).toBe(4);
    expect(await balanceOf(devnet(), to)).toBe(10n);
  }, 60_000);

  it("replaces a transaction stuck below the market with the same nonce at a higher fee: one lands", async () => {
    const to = randomAddress();
    const { transaction: stuck } = await submit(t.ctx, "ethereum", transfer("stuck", to, 5n * ETH));
    // The market moves far above its fee cap: the next block cannot include it.
    await devnet().rpc("anvil_setNextBlockBaseFeePerGas", ["0x" + (500n * 10n ** 9n).toString(16)]);
    await devnet().mine();
    expect(await balanceOf(devnet(), to)).toBe(0n);
    const pass = await t.pass({ replaceAfterBlocks: 1, replaceAfterMs: 60_000 });
    expect(pass.replaced).toBe(1);
    const rows = (await outboxRows(t.ctx)).filter((r) => r.ref === "stuck");
    expect(rows.map((r) => [r.nonce, r.generation, r.state])).toEqual([
      [stuck.nonce, 0, "replaced"],
      [stuck.nonce, 1, "broadcast"],
    ]);
    // +12.5% at least, and above the new base fee.
    const [old, replacement] = rows.map((r) => BigInt(r.max_fee)) as [bigint, bigint];
    expect(replacement * 1000n >= old * 1125n).toBe(true);
    expect(replacement > 500n * 10n ** 9n).toBe(true);
    // The old bytes are still recorded and are a valid transaction of the same nonce.
    expect(rows[0]?.raw).not.toBe(rows[1]?.raw);
    await poll("the replacement to land", async () => {
      await devnet().mine();
      await t.pass();
      return (await outboxTransaction(t.ctx, "ethereum", "test_transfer", "stuck"))?.state === "included";
    });
    expect(await balanceOf(devnet(), to)).toBe(5n * ETH);
    expect(await nonceOf(devnet(), t.hot)).toBe(stuck.nonce + 1);
    const after = (await outboxRows(t.ctx)).filter((r) => r.ref === "stuck");
    expect(after.map((r) => r.state)).toEqual(["replaced", "included"]);
  }, 60_000);

  it("fills the nonce of a transaction the node lost and will not take again, so later ones land", async () => {
    const [lostTo, laterTo] = [randomAddress(), randomAddress()];
    const start = await nonceOf(devnet(), t.hot);
    const lost = (await submit(t.ctx, "ethereum", transfer("gap-lost", lostTo, 50n * ETH))).transaction;
    const later = await Promise.all(
      [1n, 2n].map((n) => submit(t.ctx, "ethereum", transfer(`gap-later-${n}`, laterTo, n))),
    );
    // The two later ones were submitted at once: which takes which nonce is the database's race.
    const laterNonces = later.map((l) => l.transaction.nonce).sort((a, b) => a - b);
    expect([lost.nonce, ...laterNonces]).toEqual([start, start + 1, start + 2]);
    // The node loses the first, and the wallet can no longer afford it: its bytes are refused.
    await devnet().rpc("anvil_dropTransaction", [lost.hash]);
    await devnet().rpc("anvil_setBalance", [t.hot, "0x" + (10n * ETH).toString(16)]);
    await devnet().mine();
    expect(await nonceOf(devnet(), t.hot)).toBe(start);
    const told: string[] = [];
    const pass = await t.pass({ recheckAfterMs: 0, onDropped: (row) => void told.push(row.ref) });
    expect(pass.filled).toBe(1);
    expect(told).toEqual(["gap-lost"]);
    await devnet().mine();
    await t.pass();
    expect(await nonceOf(devnet(), t.hot)).toBe(start + 3);
    expect(await balanceOf(devnet(), lostTo)).toBe(0n);
    expect(await balanceOf(devnet(), laterTo)).toBe(3n);
    expect((await outboxTransaction(t.ctx, "ethereum", "test_transfer", "gap-lost"))?.state).toBe("dropped");
    const fill = await outboxTransaction(t.ctx, "ethereum", "gap_fill", lost.id);
    expect([fill?.nonce, fill?.to, fill?.value, fill?.state]).toEqual([start, t.hot, 0n, "included"]);
  }, 60_000);

  it("sends the same bytes again when a reorganisation drops an included transaction", async () => {
    const to = randomAddress();
    const { transaction: sent } = await submit(t.ctx, "ethereum", transfer("reorged", to, 1n * ETH));
    await devnet().mine();
    await t.pass();
    const included = await outboxTransaction(t.ctx, "ethereum", "test_transfer", "reorged");
    expect(included?.state).toBe("included");
    await devnet().rpc("anvil_reorg", [1, []]);
    expect(await devnet().rpc("eth_getTransactionReceipt", [sent.hash])).toBeNull();
    const pass = await t.pass();
    expect(pass.reorganised).toBe(1);
    await devnet().mine();
    await t.pass();
    const again = await outboxTransaction(t.ctx, "ethereum", "test_transfer", "reorged");
    expect([again?.state, again?.hash, again?.nonce, again?.raw]).toEqual([
      "included",
      sent.hash,
      sent.nonce,
      sent.raw,
    ]);
    expect(again?.blockHash).not.toBe(included?.blockHash);
    expect(await balanceOf(devnet(), to)).toBe(1n * ETH);
    expect(await nonceOf(devnet(), t.hot)).toBe(sent.nonce + 1);
    expect((await outboxRows(t.ctx)).filter((r) => r.ref === "reorged")).toHaveLength(1);
  }, 60_000);
});
