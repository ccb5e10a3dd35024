import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addresses, orders, settlements, transfers } from "../../src/db/schema.js";
import { newId } from "../../src/ids.js";
import { transitionOrder } from "../../src/orders/transitions.js";
import { expireOrders } from "../../src/payments/expire-orders.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { getAddressPoolCounts } from "../../src/wallet/get-address-pool-counts.js";
import { releaseAddresses } from "../../src/wallet/release-addresses.js";
import { watchedAddresses } from "../../src/wallet/watched-addresses.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "./helpers.js";

const QUARANTINE_S = 3600;
let t: TestApp;
let shop: TestMerchant;

beforeAll(async () => {
  t = await createTestApp({ env: { POOL_MIN_FREE: "10", ADDRESS_QUARANTINE_SECONDS: String(QUARANTINE_S) } });
  shop = await addMerchant(t.ctx);
  await fillAddressPool(t.ctx);
});
afterAll(async () => {
  await t.close();
});

async function loadOrder(id: string) {
  const [order] = await t.ctx.db.select().from(orders).where(eq(orders.id, id));
  if (!order) throw new Error("order missing");
  return order;
}

async function addressOf(address: string) {
  const [row] = await t.ctx.db.select().from(addresses).where(eq(addresses.address, address));
  return row;
}

/** pending -> detected -> confirmed with one confirmed transfer of the full amount. */
async function payInFull(orderId: string): Promise<void> {
  const order = await loadOrder(orderId);
  const now = t.clock.now();
  await t.ctx.db.insert(transfers).values({
    id: newId(),
    orderId,
    txHash: newId().replace(/-/g, "").padEnd(64, "0"),
    logIndex: 0,
    blockNumber: 10,
    blockHash: "ee".repeat(32),
    blockTimestamp: now,
    fromAddress: "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8",
    toAddress: order.address,
    amount: order.amountExpected,
    status: "confirmed",
    confirmedAt: now,
    createdAt: now,
  });
  const detected = await transitionOrder(t.ctx, t.ctx.db, {
    order,
    to: "detected",
    event: "payment_detected",
  });
  await transitionOrder(t.ctx, t.ctx.db, {
    order: detected.order,
    to: "confirmed",
    event: "payment_confirmed",
    patch: { amountReceived: order.amountExpected },
  });
}

describe("address release", () => {
  it("frees an expired order's unpaid address only after the quarantine, then reuses it", async () => {
    const order = (await postOrder(t, shop.apiKey, orderBody({ expires_in: 60 }))).json();
    expect((await watchedAddresses(t.ctx)).map((w) => w.address)).toContain(order.address);
    t.clock.advanceSeconds(60);
    await expireOrders(t.ctx);
    expect((await releaseAddresses(t.ctx)).released).toBe(0);
    t.clock.advanceSeconds(QUARANTINE_S - 1);
    expect((await releaseAddresses(t.ctx)).released).toBe(0);
    expect(await addressOf(order.address)).toMatchObject({ status: "allocated", orderId: order.id });
    expect((await watchedAddresses(t.ctx)).find((w) => w.address === order.address)?.orderId).toBe(order.id);

    t.clock.advanceSeconds(1);
    const freeBefore = (await getAddressPoolCounts(t.ctx)).free;
    expect((await releaseAddresses(t.ctx)).released).toBe(1);
    expect(await addressOf(order.address)).toMatchObject({ status: "free", orderId: null });
    expect((await getAddressPoolCounts(t.ctx)).free).toBe(freeBefore + 1);
    // Still watched (every derived address is), but a transfer to it is now a stray, not the order's.
    expect((await watchedAddresses(t.ctx)).find((w) => w.address === order.address)?.orderId).toBeNull();
    // The lowest free derivation index is claimed first, so the next order gets it back.
    const next = (await postOrder(t, shop.apiKey, orderBody())).json();
    expect(next.address).toBe(order.address);
    expect(await addressOf(order.address)).toMatchObject({ status: "allocated", orderId: next.id });
    expect((await loadOrder(order.id)).address).toBe(order.address);
  });

  it("keeps a paid address while its order is confirmed, and while completed but unswept", async () => {
    const order = (await postOrder(t, shop.apiKey, orderBody({ amount: "3" }))).json();
    await payInFull(order.id);
    t.clock.advanceSeconds(QUARANTINE_S * 10);
    expect((await releaseAddresses(t.ctx)).released).toBe(0);
    expect((await addressOf(order.address))?.status).toBe("allocated");

    await transitionOrder(t.ctx, t.ctx.db, {
      order: await loadOrder(order.id),
      to: "completed",
      event: "order_completed",
    });
    t.clock.advanceSeconds(QUARANTINE_S * 10);
    expect((await releaseAddresses(t.ctx)).released).toBe(0);
    expect(await addressOf(order.address)).toMatchObject({ status: "allocated", orderId: order.id });

    // A failed sweep does not count either.
    const now = t.clock.now();
    await t.ctx.db.insert(settlements).values({
      id: newId(),
      orderId: order.id,
      address: order.address,
      status: "failed",
      attempts: 3,
      createdAt: now,
      updatedAt: now,
    });
    expect((await releaseAddresses(t.ctx)).released).toBe(0);

    await t.ctx.db
      .update(settlements)
      .set({ status: "completed", sweptAt: now, updatedAt: now })
      .where(eq(settlements.orderId, order.id));
    expect((await releaseAddresses(t.ctx)).released).toBe(1);
    expect(await addressOf(order.address)).toMatchObject({ status: "free", orderId: null });
  });

  it("waits out the quarantine after a paid order completes and is swept", async () => {
    const order = (await postOrder(t, shop.apiKey, orderBody({ amount: "4" }))).json();
    await payInFull(order.id);
    const now = t.clock.now();
    await t.ctx.db.insert(settlements).values({
      id: newId(),
      orderId: order.id,
      address: order.address,
      status: "completed",
      sweptAt: now,
      attempts: 1,
      createdAt: now,
      updatedAt: now,
    });
    t.clock.advanceSeconds(10);
    await transitionOrder(t.ctx, t.ctx.db, {
      order: await loadOrder(order.id),
      to: "completed",
      event: "order_completed",
    });
    t.clock.advanceSeconds(QUARANTINE_S - 1);
    expect((await releaseAddresses(t.ctx)).released).toBe(0);
    t.clock.advanceSeconds(1);
    expect((await releaseAddresses(t.ctx)).released).toBe(1);
  });

  it("keeps an address whose order got a transfer after the sweep", async () => {
    const order = (await postOrder(t, shop.apiKey, orderBody({ amount: "2" }))).json();
    await payInFull(order.id);
    await transitionOrder(t.ctx, t.ctx.db, {
      order: await loadOrder(order.id),
      to: "completed",
      event: "order_completed",
    });
    const sweptAt = new Date(t.clock.now().getTime() - 1000);
    await t.ctx.db.insert(settlements).values({
      id: newId(),
      orderId: order.id,
      address: order.address,
      status: "completed",
      sweptAt,
      attempts: 1,
      createdAt: sweptAt,
      updatedAt: sweptAt,
    });
    t.clock.advanceSeconds(QUARANTINE_S * 2);
    expect((await releaseAddresses(t.ctx)).released).toBe(0);
  });
});
