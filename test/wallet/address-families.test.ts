/**
 * One address pool per chain family (migration 0022): an order on an EVM chain gets an EVM address
 * (m/44'/60'/0'/0/i) from the EVM pool, a TRON order a TRON one; one EVM address serves one order
 * at a time across every EVM chain; an empty EVM pool derives EVM addresses inline; the pools'
 * counters, free lists and indexes stay exact per family (check-rollups). The EVM chains are
 * configured but never contacted: creating orders needs no node. Runs on PGlite, and on
 * PostgreSQL when TEST_DATABASE_URL is set.
 */
import { sql } from "drizzle-orm";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { computeAddress } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { fillAddressPool, fillAddressPools, readPoolState } from "../../src/wallet/fill-address-pool.js";
import { releaseAddresses } from "../../src/wallet/release-addresses.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_MNEMONIC } from "../helpers/config.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";

let t: TestApp;
let shop: TestMerchant;

/** The test mnemonic's EVM address m/44'/60'/0'/0/i, derived by @scure/bip32 and ethers directly. */
function evmAddressAt(index: number): string {
  const key = HDKey.fromMasterSeed(mnemonicToSeedSync(TEST_MNEMONIC)).derive(`m/44'/60'/0'/0/${index}`);
  return computeAddress("0x" + Buffer.from(key.publicKey as Uint8Array).toString("hex")).toLowerCase();
}

async function addressRow(address: string) {
  const [row] = await queryRows<{
    family: string;
    derivation_index: number;
    status: string;
    order_id: string;
  }>(
    t.ctx.db,
    sql`SELECT family, derivation_index, status, order_id::text FROM addresses WHERE address = ${address}`,
  );
  return row;
}

async function create(patch: Record<string, unknown>) {
  const res = await postOrder(t, shop.apiKey, orderBody(patch));
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; address: string; chain: string };
}

beforeAll(async () => {
  t = await createTestApp({
    env: {
      POOL_MIN_FREE: "3",
      CHAINS: "tron,ethereum,bsc",
      ETHEREUM_RPC_URL: "http://127.0.0.1:1",
      ETHEREUM_NETWORK: "mainnet",
      BSC_NETWORK: "mainnet",
      BSC_RPC_URL: "http://127.0.0.1:1",
    },
  });
  shop = await addMerchant(t.ctx, "Families Shop");
});
afterAll(async () => {
  await t.close();
});

describe("address pools per chain family", () => {
  it("fills one pool per enabled family, each from index 0 with its own derivation", async () => {
    await fillAddressPools(t.ctx);
    const rows = await queryRows<{ family: string; n: number; first: number; last: number; sample: string }>(
      t.ctx.db,
      sql`SELECT family, count(*)::int AS n, min(derivation_index) AS first, max(derivation_index) AS last,
            min(address) FILTER (WHERE derivation_index = 0) AS sample
          FROM addresses GROUP BY family ORDER BY family`,
    );
    expect(rows.map((r) => [r.family, r.n, r.first, r.last])).toEqual([
      ["evm", 3, 0, 2],
      ["tron", 3, 0, 2],
    ]);
    expect(rows[0]?.sample).toBe(evmAddressAt(0));
    expect(rows[1]?.sample).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(await readPoolState(t.ctx.db, "evm")).toEqual({ free: 3, taken: 0, nextIndex: 3 });
    expect(await readPoolState(t.ctx.db, "tron")).toEqual({ free: 3, taken: 0, nextIndex: 3 });
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });

  it("gives an Ethereum order an EVM address of the EVM pool, and a TRON order a TRON address", async () => {
    const eth = await create({ chain: "ethereum", currency: "USDC" });
    const tron = await create({ chain: "tron", currency: "USDT" });
    expect(eth.address.toLowerCase()).toBe(evmAddressAt(0));
    expect(await addressRow(eth.address.toLowerCase())).toEqual({
      family: "evm",
      derivation_index: 0,
      status: "allocated",
      order_id: eth.id,
    });
    expect(tron.address).toMatch(/^T/);
    expect((await addressRow(tron.address))?.family).toBe("tron");
    expect((await readPoolState(t.ctx.db, "evm")).free).toBe(2);
    expect((await readPoolState(t.ctx.db, "tron")).free).toBe(2);
  });

  it("holds one EVM address for one order at a time across every EVM chain", async () => {
    const held = new Set<string>();
    for (const chain of ["bsc", "ethereum", "bsc", "ethereum"]) {
      const order = await create({ chain, currency: "USDT" });
      expect(order.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      held.add(order.address.toLowerCase());
    }
    // 1 + 4 EVM orders: the 2 left in the pool, then a block derived inline, all distinct.
    expect(held.size).toBe(4);
    const [evm] = await queryRows<{ n: number; distinct_orders: number; max_index: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n, count(DISTINCT order_id)::int AS distinct_orders,
            max(derivation_index) AS max_index
          FROM addresses WHERE family = 'evm' AND status = 'allocated'`,
    );
    expect(evm).toEqual({ n: 5, distinct_orders: 5, max_index: expect.any(Number) });
    const indexes = await queryRows<{ derivation_index: number; address: string }>(
      t.ctx.db,
      sql`SELECT derivation_index, address FROM addresses WHERE family = 'evm' ORDER BY derivation_index LIMIT 6`,
    );
    for (const row of indexes) expect(row.address).toBe(evmAddressAt(row.derivation_index));
    // The TRON pool lent none of its addresses to EVM orders.
    const [tron] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM addresses a JOIN orders o ON o.address_id = a.id
          WHERE a.family = 'tron' AND o.chain <> 'tron'`,
    );
    expect(tron?.n).toBe(0);
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });

  it("keeps the pools apart when the filler runs for one family only", async () => {
    const before = await readPoolState(t.ctx.db, "tron");
    const evm = await readPoolState(t.ctx.db, "evm");
    await fillAddressPool(t.ctx, { family: "evm", target: evm.free + 5 });
    expect(await readPoolState(t.ctx.db, "tron")).toEqual(before);
    expect(await readPoolState(t.ctx.db, "evm")).toEqual({
      ...evm,
      free: evm.free + 5,
      nextIndex: evm.nextIndex + 5,
    });
    // Without a family, the filler fills the primary chain's pool (TRON here), as before families.
    await fillAddressPool(t.ctx, { target: before.free + 2 });
    expect((await readPoolState(t.ctx.db, "tron")).free).toBe(before.free + 2);
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });

  it("releases a final EVM order's address back to the EVM pool after the quarantine", async () => {
    const order = await create({ chain: "ethereum", currency: "USDT" });
    const address = order.address.toLowerCase();
    await queryRows(t.ctx.db, sql`UPDATE orders SET status = 'expired' WHERE id = ${order.id}::uuid`);
    const free = (await readPoolState(t.ctx.db, "evm")).free;
    expect((await releaseAddresses(t.ctx)).released).toBe(0);
    t.clock.advance(73 * 3600 * 1000);
    expect((await releaseAddresses(t.ctx)).released).toBe(1);
    expect(await addressRow(address)).toMatchObject({ family: "evm", status: "free" });
    expect((await readPoolState(t.ctx.db, "evm")).free).toBe(free + 1);
    const [listed] = await queryRows<{ family: string }>(
      t.ctx.db,
      sql`SELECT family FROM free_addresses WHERE address = ${address}`,
    );
    expect(listed?.family).toBe("evm");
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});
