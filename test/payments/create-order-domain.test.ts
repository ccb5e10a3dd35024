import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { createOrder } from "../../src/payments/create-order.js";
import { deriveAddress } from "@stablegate/tron/hd";
import { INLINE_BLOCK_SIZE } from "../../src/wallet/derive-address-inline.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { getAddressPoolCounts } from "../../src/wallet/get-address-pool-counts.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant, type TestMerchant } from "./helpers.js";

let t: TestApp;
let merchant: TestMerchant;
beforeAll(async () => {
  t = await createTestApp({ env: { POOL_MIN_FREE: "80" } });
  merchant = await addMerchant(t.ctx);
});
afterAll(async () => {
  await t.close();
});

const input = (externalId: string) => ({
  externalId,
  amount: "25",
  currency: "USDT" as const,
  callbackUrl: "https://shop.example.com/cb",
});

describe("deposit address pool", () => {
  it("derives a block of addresses inline when the pool is empty, equal to deriveAddress(xpub, i)", async () => {
    expect((await getAddressPoolCounts(t.ctx)).total).toBe(0);
    const first = await createOrder(t.ctx, merchant, input("inline-1"));
    const second = await createOrder(t.ctx, merchant, input("inline-2"));
    expect(first.created).toBe(true);
    expect(first.order.address).toBe(deriveAddress(t.ctx.config.walletXpub, 0));
    // The second creation takes the next address of the first one's block.
    expect(second.order.address).toBe(deriveAddress(t.ctx.config.walletXpub, 1));
    expect(await getAddressPoolCounts(t.ctx)).toEqual({
      total: INLINE_BLOCK_SIZE,
      free: INLINE_BLOCK_SIZE - 2,
      allocated: 2,
    });
  });

  it("the filler tops the pool up to POOL_MIN_FREE with the next derivation indexes", async () => {
    const result = await fillAddressPool(t.ctx);
    expect(result).toEqual({ inserted: 80 - (INLINE_BLOCK_SIZE - 2), free: 80, more: false });
    const rows = await queryRows<{ derivation_index: number; address: string; status: string }>(
      t.ctx.db,
      sql`SELECT derivation_index, address, status FROM addresses ORDER BY derivation_index`,
    );
    expect(rows.map((row) => row.derivation_index)).toEqual(Array.from({ length: 82 }, (_, i) => i));
    for (const row of rows)
      expect(row.address).toBe(deriveAddress(t.ctx.config.walletXpub, row.derivation_index));
    expect((await fillAddressPool(t.ctx)).inserted).toBe(0);
  });

  it("two fillers racing insert every index once", async () => {
    await Promise.all([
      fillAddressPool(t.ctx, { target: 160, batchSize: 40 }),
      fillAddressPool(t.ctx, { target: 160, batchSize: 40 }),
    ]);
    const [row] = await queryRows<{ n: string; max: string }>(
      t.ctx.db,
      sql`SELECT count(*)::text AS n, max(derivation_index)::text AS max FROM addresses`,
    );
    expect(Number(row?.n)).toBe(Number(row?.max) + 1);
    // Both inserted their batch (the second reserved the indexes after the first's).
    expect((await getAddressPoolCounts(t.ctx)).free).toBe(160);
  });

  it("claims the lowest free address and binds it to the order", async () => {
    const { order } = await createOrder(t.ctx, merchant, input("claim-1"));
    expect(order.address).toBe(deriveAddress(t.ctx.config.walletXpub, 2));
    const [address] = await queryRows<{ status: string; order_id: string }>(
      t.ctx.db,
      sql`SELECT status, order_id::text AS order_id FROM addresses WHERE address = ${order.address}`,
    );
    expect(address).toEqual({ status: "allocated", order_id: order.id });
  });
});
