/**
 * The pool filler: it reads the pool's counters rather than counting addresses, sizes
 * its batches and its target to the rate at which addresses are taken, and completes the
 * reservation of a filler that died between reserving and inserting, so indexes stay contiguous.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveAddress } from "@stablegate/tron/hd";
import { describeDatabaseError } from "../../src/db/database-error.js";
import { queryRows } from "../../src/db/query-rows.js";
import { createOrder } from "../../src/payments/create-order.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import {
  fillAddressPool,
  POOL_BATCH_SIZE,
  POOL_HEADROOM_SECONDS,
  readPoolState,
  RESERVATION_STALE_MS,
} from "../../src/wallet/fill-address-pool.js";
import { INLINE_BLOCK_SIZE } from "../../src/wallet/derive-address-inline.js";
import { startAddressPoolFiller } from "../../src/workers/payment-loops.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { poll } from "../helpers/poll.js";
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

  it("raises its target with the take rate, measured on the clock", async () => {
    // A run a rate window after any earlier one starts a new measurement; it also leaves enough
    // free addresses for the takes below, so none is derived inline meanwhile.
    t.clock.advance(1_000);
    await fillAddressPool(t.ctx, { target: 80 });
    t.clock.advance(2_000);
    for (let i = 0; i < 60; i++) await create(`rate-${i}`);
    expect((await readPoolState(t.ctx.db)).free).toBe(20);
    // 60 taken in 2 s: 30 a second, so the pool heads for 30 x POOL_HEADROOM_SECONDS = 300 free, not
    // for POOL_MIN_FREE (20); one run derives one batch of at least POOL_BATCH_SIZE.
    expect(30 * POOL_HEADROOM_SECONDS).toBeGreaterThan(20 + POOL_BATCH_SIZE);
    expect(await fillAddressPool(t.ctx)).toEqual({
      inserted: POOL_BATCH_SIZE,
      free: 20 + POOL_BATCH_SIZE,
      more: true,
    });
    // Within the rate window the measurement stands: the next run keeps heading for 300.
    t.clock.advance(500);
    expect(await fillAddressPool(t.ctx)).toEqual({
      inserted: POOL_BATCH_SIZE,
      free: 20 + 2 * POOL_BATCH_SIZE,
      more: true,
    });
    // A window with no takes brings the target back to POOL_MIN_FREE.
    t.clock.advance(1_000);
    expect(await fillAddressPool(t.ctx)).toEqual({
      inserted: 0,
      free: 20 + 2 * POOL_BATCH_SIZE,
      more: false,
    });
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

  it("inserts its batch plainly: one that meets an existing row fails whole, and its reservation is completed later", async () => {
    const before = await readPoolState(t.ctx.db);
    // A row the batch's reservation should have made impossible (a bug): index nextIndex + 2.
    const taken = before.nextIndex + 2;
    await t.ctx.db.execute(sql`INSERT INTO addresses (derivation_index, address, status, created_at)
      VALUES (${taken}, ${deriveAddress(t.ctx.config.walletXpub, taken)}, 'free', now())`);
    const failed = await fillAddressPool(t.ctx, { target: before.free + 100, batchSize: 5 }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(describeDatabaseError(failed)?.sqlstate).toBe("23505");
    const inRange = () =>
      queryRows<{ derivation_index: number; address: string }>(
        t.ctx.db,
        sql`SELECT derivation_index, address FROM addresses
            WHERE derivation_index >= ${before.nextIndex} AND derivation_index < ${before.nextIndex + 5}
            ORDER BY derivation_index`,
      );
    // Nothing of the batch was inserted, and its reservation is still there.
    expect((await inRange()).map((row) => row.derivation_index)).toEqual([taken]);
    const reservations = () =>
      queryRows<{ from_index: number; count: number }>(
        t.ctx.db,
        sql`SELECT from_index, count FROM address_pool_reservations`,
      );
    expect(await reservations()).toEqual([{ from_index: before.nextIndex, count: 5 }]);
    // Once stale, the next run completes it and skips the row that was already there.
    await t.ctx.db.execute(
      sql`UPDATE address_pool_reservations SET reserved_at = reserved_at - ${`${RESERVATION_STALE_MS + 1_000} milliseconds`}::interval`,
    );
    expect((await fillAddressPool(t.ctx, { target: before.free + 100, batchSize: 5 })).inserted).toBe(4);
    const rows = await inRange();
    expect(rows.map((row) => row.derivation_index)).toEqual(
      Array.from({ length: 5 }, (_, i) => before.nextIndex + i),
    );
    for (const row of rows)
      expect(row.address).toBe(deriveAddress(t.ctx.config.walletXpub, row.derivation_index));
    expect(await reservations()).toEqual([]);
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});

describe("the pool filler loop", () => {
  it("runs at once when a creation finds the pool empty, instead of at the end of its pause", async () => {
    // A target above one inline block, so the block a creation derives leaves the pool short.
    const target = INLINE_BLOCK_SIZE + 36;
    const app = await createTestApp({ env: { POOL_MIN_FREE: String(target) } });
    try {
      const merchant = await addMerchant(app.ctx);
      // A pause far longer than the test: only a wake-up can make it run again.
      const filler = startAddressPoolFiller(app.ctx, { intervalMs: 600_000 });
      try {
        const state = () => readPoolState(app.ctx.db);
        await poll(
          "the filler's first run to fill the pool",
          async () => ((await state()).free === target ? true : undefined),
          { timeoutMs: 10_000, describe: async () => JSON.stringify(await state()) },
        );
        // Takes every free address, then one more: that creation finds the pool empty.
        for (let i = 0; i <= target; i++)
          await createOrder(app.ctx, merchant, {
            externalId: `drain-${i}`,
            amount: "1",
            currency: "USDT",
            callbackUrl: "https://shop.example.com/cb",
          });
        const after = await poll(
          "the woken filler to bring the pool back to its target",
          async () => {
            const s = await state();
            return s.free >= target ? s : undefined;
          },
          {
            timeoutMs: 10_000,
            describe: async () => `pool now ${JSON.stringify(await state())}, target ${target}`,
          },
        );
        // The creation's inline block (one address of it taken) and the filler's refill.
        expect(after.taken).toBe(target + 1);
        expect(after.nextIndex).toBeGreaterThan(target + INLINE_BLOCK_SIZE);
        expect(await checkRollups(app.ctx.db)).toEqual([]);
      } finally {
        await filler.stop();
      }
    } finally {
      await app.close();
    }
  });
});
