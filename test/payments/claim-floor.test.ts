/**
 * The claim floor (src/payments/create-order.ts): a process's claims start above the
 * addresses its earlier claims took, so they never step over the dead index entries those claims
 * left, and a free address below the floor is still given out: after FLOOR_RESET_MS, or at once
 * when nothing is free above the floor.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addresses } from "../../src/db/schema.js";
import { queryRows } from "../../src/db/query-rows.js";
import { claimFloorIndex, FLOOR_RESET_MS } from "../../src/payments/create-order.js";
import { fillAddressPool, readPoolState } from "../../src/wallet/fill-address-pool.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { explainClaim } from "../helpers/claim-plan.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "./helpers.js";

let t: TestApp;
let shop: TestMerchant;

beforeAll(async () => {
  t = await createTestApp({ env: { POOL_MIN_FREE: "10" } });
  shop = await addMerchant(t.ctx);
});
afterAll(() => t.close());

async function create(): Promise<{ address: string; index: number }> {
  const reply = await postOrder(t, shop.apiKey, orderBody());
  expect(reply.statusCode, reply.body).toBe(201);
  const address = reply.json().address as string;
  const [row] = await t.ctx.db.select().from(addresses).where(eq(addresses.address, address));
  return { address, index: row?.derivationIndex as number };
}

/** Puts an allocated address back in the pool, as a claim that rolled back leaves it. */
async function free(address: string): Promise<void> {
  await queryRows(
    t.ctx.db,
    sql`UPDATE addresses SET status = 'free', order_id = NULL, allocated_at = NULL WHERE address = ${address}`,
  );
}

/**
 * Buffers a claim of 5 from `floor` touches in the free list (EXPLAIN ANALYZE, rolled back). The limit is a
 * subquery, as in the creation statement: the plan must walk the index in order from the floor,
 * never collect every free address above it to sort them.
 */
async function claimBuffers(floor: number): Promise<number> {
  const { plan, listBuffers } = await explainClaim(t.ctx, floor, "(SELECT 5)");
  expect(plan).toContain("Index Scan using free_addresses_pkey");
  expect(plan).not.toContain("Sort");
  return listBuffers;
}

describe("the claim floor", () => {
  it("starts above the addresses taken before, and comes back for a freed one after FLOOR_RESET_MS", async () => {
    await fillAddressPool(t.ctx, { target: 30, batchSize: 30 });
    const first = await create();
    const second = await create();
    expect(second.index).toBe(first.index + 1);
    expect(claimFloorIndex(t.ctx)).toBe(second.index);

    await free(first.address);
    // The freed address is below the floor: the next claim starts above it.
    const third = await create();
    expect(third.index).toBe(second.index + 1);

    t.clock.advance(FLOOR_RESET_MS);
    const fourth = await create();
    expect(fourth.address).toBe(first.address);
  });

  it("looks below the floor before it calls the pool empty and derives inline", async () => {
    t.clock.advance(FLOOR_RESET_MS);
    const lowest = await create();
    // Take every free address, so nothing is free above the floor.
    for (let state = await readPoolState(t.ctx.db); state.free > 0; state = await readPoolState(t.ctx.db)) {
      await create();
    }
    expect(claimFloorIndex(t.ctx)).toBeGreaterThan(lowest.index);
    await free(lowest.address);
    const derivedBefore = (await readPoolState(t.ctx.db)).nextIndex;

    const again = await create();
    expect(again.address).toBe(lowest.address);
    // Found without deriving a single address inline.
    expect((await readPoolState(t.ctx.db)).nextIndex).toBe(derivedBefore);
  });

  it("makes a claim from the floor read none of the dead entries below it", async () => {
    await fillAddressPool(t.ctx, { target: 6_000, batchSize: 2_000 });
    // 5,000 takes in one statement each of 500, as creations claim: dead entries at the index's front.
    const { nextIndex } = await readPoolState(t.ctx.db);
    const start = nextIndex - 6_000;
    for (let i = 0; i < 5_000; i += 500) {
      await queryRows(
        t.ctx.db,
        sql`UPDATE addresses SET status = 'allocated', allocated_at = now()
            WHERE derivation_index >= ${start + i} AND derivation_index < ${start + i + 500}`,
      );
    }
    const fromZero = await claimBuffers(0);
    const fromFloor = await claimBuffers(start + 5_000);
    // 5,000 dead entries of an integer key are some 13 index pages.
    expect(fromZero).toBeGreaterThan(10);
    expect(fromFloor).toBeLessThan(fromZero / 3);
  });
});
