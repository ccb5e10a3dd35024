/**
 * The pool filler (issue 26): it reads the pool's counters rather than counting addresses, sizes
 * its batches and its target to the rate at which addresses are taken, and completes the
 * reservation of a filler that died between reserving and inserting, so indexes stay contiguous.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveAddress } from "@stablegate/tron/hd";
import { queryRows } from "../../src/db/query-rows.js";
import { createOrder } from "../../src/payments/create-order.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import {
  fillAddressPool,
  POOL_HEADROOM_SECONDS,
  readPoolState,
  RESERVATION_STALE_MS,
} from "../../src/wallet/fill-address-pool.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";

let t: TestApp;
let shop: TestMerchant;
beforeAll(async () => {
  t = await createTestApp({ env: { POOL_MIN_FREE: "20" } });
  shop = await addMerchant(t.ctx);
});
afterAll(() => t.close());

const create = (externalId: string) =>
  createOrder(t.ctx, shop, {
    externalId,
    amount: "1",
    currency: "USDT",
    callbackUrl: "https://shop.example.com/cb",
  });

describe("the pool filler", () => {
  it("keeps POOL_MIN_FREE free, read from the counters the trigger keeps", async () => {
    expect(await fillAddressPool(t.ctx)).toEqual({ inserted: 20, free: 20, more: false });
    expect(await readPoolState(t.ctx.db)).toEqual({ free: 20, taken: 0, nextIndex: 20 });
    for (let i = 0; i < 5; i++) await create(`counted-${i}`);
    expect(await readPoolState(t.ctx.db)).toEqual({ free: 15, taken: 5, nextIndex: 20 });
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });

  it("raises its target with the take rate", async () => {
    // Enough free addresses for the takes below, so none is derived inline meanwhile.
    await fillAddressPool(t.ctx, { target: 80 });
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    for (let i = 0; i < 60; i++) await create(`rate-${i}`);
    expect((await readPoolState(t.ctx.db)).free).toBe(20);
    const first = await fillAddressPool(t.ctx);
    const state = await readPoolState(t.ctx.db);
    // The pool heads for rate x POOL_HEADROOM_SECONDS (60 taken within a few seconds, however slow
    // the machine: above 2/s, so more than POOL_MIN_FREE), not for POOL_MIN_FREE alone.
    expect(first.inserted).toBeGreaterThan(0);
    expect(state.free).toBeGreaterThan(20);
    expect(state.free).toBeLessThanOrEqual(60 * POOL_HEADROOM_SECONDS);
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });

  it("completes the reservation of a filler that died before inserting it", async () => {
    const before = await readPoolState(t.ctx.db);
    // A filler reserved 7 indexes long ago and never came back.
    await t.ctx.db.execute(sql`UPDATE address_pool_state SET next_index = next_index + 7`);
    await t.ctx.db.execute(sql`INSERT INTO address_pool_reservations (from_index, count, reserved_at)
      VALUES (${before.nextIndex}, 7, ${new Date(t.clock.now().getTime() - RESERVATION_STALE_MS - 1000).toISOString()}::timestamptz)`);
    // Consistent meanwhile: the reservation is accounted for.
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    await t.ctx.db.execute(sql`UPDATE addresses SET status = 'allocated' WHERE status = 'free'`);
    const result = await fillAddressPool(t.ctx, { target: 10 });
    expect(result.inserted).toBe(7);
    const rows = await queryRows<{ derivation_index: number; address: string }>(
      t.ctx.db,
      sql`SELECT derivation_index, address FROM addresses WHERE derivation_index >= ${before.nextIndex}
          ORDER BY derivation_index`,
    );
    expect(rows.map((row) => row.derivation_index)).toEqual(
      Array.from({ length: 7 }, (_, i) => before.nextIndex + i),
    );
    for (const row of rows)
      expect(row.address).toBe(deriveAddress(t.ctx.config.walletXpub, row.derivation_index));
    const [left] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM address_pool_reservations`,
    );
    expect(left?.n).toBe(0);
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});
