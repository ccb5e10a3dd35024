/**
 * "No USDT transfer to any address Stablegate derived can go unrecorded":
 * every kind of address (allocated to a pending order, quarantined after expiry, free after
 * release, never handed out) is paid in one block over the devnet; each transfer is found on the
 * books (an order's transfers or a stray transfer), matched against the chain's own logs, and in
 * the cold wallet after the sweep. And a fork reverts a stray before it is confirmed.
 */
import { desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateAlerts } from "../../src/alerts/evaluate-alerts.js";
import { addresses, strayTransfers, transfers } from "../../src/db/schema.js";
import { expireOrders } from "../../src/payments/expire-orders.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { releaseAddresses } from "../../src/wallet/release-addresses.js";
import { chainTransfers } from "../chain/helpers.js";
import {
  addressRow,
  complete,
  payAndConfirm,
  QUARANTINE_S,
  startStrayTest,
  straysTo,
  sweepAll,
  USDT,
  type StrayTest,
} from "./helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

let s: StrayTest;

beforeAll(async () => {
  s = await startStrayTest();
}, 120_000);
afterAll(async () => {
  await s.close();
});

async function neverHandedOut(): Promise<string> {
  await fillAddressPool(s.t.ctx);
  const [spare] = await s.t.ctx.db
    .select()
    .from(addresses)
    .where(eq(addresses.status, "free"))
    .orderBy(desc(addresses.derivationIndex))
    .limit(1);
  if (!spare || spare.lastOrderId !== null) throw new Error("no never-used address in the pool");
  return spare.address;
}

describe("stray transfers and forks", () => {
  it("drops an unconfirmed stray when a fork takes its block away, and frees its address", async () => {
    const { t } = s;
    const address = await neverHandedOut();
    const txid = await t.pay(address, 2n * USDT);
    t.mine(2);
    await t.scanner.sync();
    expect(await straysTo(t, address)).toEqual([expect.objectContaining({ txHash: txid, status: "seen" })]);
    expect((await addressRow(t, address))?.status).toBe("allocated");

    const fork = await t.devnetPost<{ dropped: { transactions: string[] }[] }>("/devnet/fork", { depth: 2 });
    expect(fork.dropped.flatMap((b) => b.transactions)).toContain(txid);
    await t.scanner.sync();
    expect(await straysTo(t, address)).toEqual([]);
    expect((await evaluateAlerts(t.ctx)).fired).not.toContain("stray_transfer");
    await releaseAddresses(t.ctx);
    expect(await addressRow(t, address)).toMatchObject({ status: "free", orderId: null });
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});

describe("every derived address", () => {
  it("puts each transfer on the books and, after the sweep, in the cold wallet", async () => {
    const { t } = s;
    const coldBefore = await usdtBalance(t.devnet, s.cold);
    // free: paid, completed, swept and released
    const released = await t.order("1");
    await payAndConfirm(t, released.address, 1n * USDT);
    await complete(t, released.id);
    await sweepAll(t);
    // quarantined: expired, still held by its order
    const expired = await t.order("7", { expiresIn: 60 });
    // allocated: a pending order (created before the release, so it cannot take the freed address)
    const pending = await t.order("5", { expiresIn: 86_400 });
    t.clock.advanceSeconds(QUARANTINE_S + 61);
    await expireOrders(t.ctx);
    await releaseAddresses(t.ctx);
    expect(await addressRow(t, released.address)).toMatchObject({ status: "free", orderId: null });
    expect(await addressRow(t, expired.address)).toMatchObject({ status: "allocated", orderId: expired.id });
    // never handed out
    const spare = await neverHandedOut();
    expect(new Set([released.address, expired.address, pending.address, spare]).size).toBe(4);

    const headNow = async () => (await t.ctx.chain.client.getNowBlock()).block_header.raw_data.number ?? 0;
    const fromBlock = (await headNow()) + 1;
    const paid = {
      [pending.address]: 5n * USDT,
      [expired.address]: 7n * USDT,
      [released.address]: 2n * USDT,
      [spare]: 3n * USDT,
    };
    const txids: string[] = [];
    for (const [to, amount] of Object.entries(paid)) txids.push(await t.pay(to, amount));
    t.mine(1);
    await t.finalize();

    // On the books: the two orders' payments and two strays, each exactly once.
    expect((await t.orderRow(pending.id)).status).toBe("confirmed");
    expect((await t.orderRow(expired.id)).status).toBe("confirmed");
    expect(await t.events(expired.id)).toContain("late_payment");
    const orderTransfers = await t.ctx.db.select().from(transfers);
    const strays = await t.ctx.db.select().from(strayTransfers);
    const books = [...orderTransfers, ...strays]
      .filter((r) => txids.includes(r.txHash))
      .map((r) => `${r.txHash}:${r.logIndex}`)
      .sort();
    // The chain's own logs to our addresses in those blocks are exactly the books.
    const ours = new Set(Object.keys(paid));
    const head = await headNow();
    expect(books).toEqual(await chainTransfers(t, ours, fromBlock, head));
    expect(books).toHaveLength(4);
    expect(
      strays
        .filter((r) => txids.includes(r.txHash))
        .map((r) => r.toAddress)
        .sort(),
    ).toEqual([released.address, spare].sort());
    for (const r of strays) expect(r.status).toBe("confirmed");

    await sweepAll(t);
    for (const address of Object.keys(paid)) expect(await usdtBalance(t.devnet, address)).toBe(0n);
    expect(await usdtBalance(t.devnet, s.cold)).toBe(
      coldBefore + 1n * USDT + 5n * USDT + 7n * USDT + 2n * USDT + 3n * USDT,
    );
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  }, 180_000);
});
