/**
 * Static deposits of an 18-decimal token and the deposit figures per chain and currency (issue 40,
 * DESIGN.md 15 and 16), on an Anvil devnet over HTTP (bsc, chain id 56, whose USDT is the
 * 18-decimal token and whose USDC has 6 decimals) and PostgreSQL (PGlite unless TEST_DATABASE_URL is
 * set). A deposit of 1.0000005 USDT credits 1.000000 and keeps 0.000000500000000000 on the deposit,
 * shown exactly in the admin and merchant reads and never credited; the deposit rollups count USDT
 * and USDC apart, /admin/stats's chain and currency filters narrow the deposit figures, and a
 * planted wrong rollup is reported by check-rollups under its chain and currency. A transfer of less
 * than one micro-unit in all credits nothing and records nothing, and never stops the scanner.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import { queryRows } from "../../src/db/query-rows.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { fillAddressPools } from "../../src/wallet/fill-address-pool.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { FAST_RETRY } from "../chain/helpers.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";
import { startReceiver, type Receiver } from "./helpers.js";

const bsc = evmDevnetForFile({ chainId: 56 });
let t: TestApp;
let shop: TestMerchant;
let receiver: Receiver;
let scanner: Scanner;
let cookie: string;
let addressId: string;
let address: string;
let usdtHash: string;
let usdcHash: string;

async function finalise() {
  await bsc().mine(1);
  await scanner.sync();
  await bsc().mine(bsc().finalityDepth + 1);
  await scanner.sync();
}

async function stats(query = "") {
  const res = await t.app.inject({ method: "GET", url: `/api/v1/admin/stats${query}`, headers: { cookie } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().deposits as {
    today: { deposit_count: number; total_received: string };
    week: { deposit_count: number; total_received: string };
    total: { deposit_count: number; total_received: string };
    currencies: string[];
    by_chain_currency: {
      chain: string;
      currency: string;
      total: { deposit_count: number; total_received: string };
    }[];
  };
}

beforeAll(async () => {
  receiver = await startReceiver();
  t = await createTestApp({
    env: {
      CHAINS: "bsc",
      CONFIRMATIONS: "1",
      SWEEP_ENABLED: "false",
      POOL_MIN_FREE: "2",
      ...evmChainEnv("bsc", bsc(), bsc().usdt18Contract),
    },
  });
  shop = await addMerchant(t.ctx, "Remainders");
  cookie = await adminCookie(t.app);
  await fillAddressPools(t.ctx);
  scanner = createScanner(t.ctx, { chain: t.ctx.chains.primary, retry: FAST_RETRY, maxIdleMs: 50 });
  await scanner.sync();
  const created = await t.app.inject({
    method: "POST",
    url: "/api/v1/deposit-addresses",
    headers: { "x-api-key": shop.apiKey, "content-type": "application/json" },
    payload: JSON.stringify({ customer_ref: "player-7", callback_url: receiver.url, chain: "bsc" }),
  });
  expect(created.statusCode, created.body).toBe(201);
  ({ id: addressId, address } = created.json() as { id: string; address: string });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe("a static deposit of an 18-decimal token", () => {
  it("credits 1.000000 of 1.0000005 USDT and keeps 0.000000500000000000 on the deposit, shown exactly", async () => {
    usdtHash = (
      await sendToken(bsc(), bsc().usdt18Contract, address, 1_000_000_500_000_000_000n)
    ).toLowerCase();
    usdcHash = (await sendToken(bsc(), bsc().usdcContract, address, 2_500_000n)).toLowerCase();
    await finalise();

    const rows = await queryRows<Record<string, string | number>>(
      t.ctx.db,
      sql`SELECT currency, amount::text AS amount, remainder::text AS remainder, token_decimals, status
          FROM deposits WHERE deposit_address_id = ${addressId}::uuid ORDER BY currency`,
    );
    expect(rows).toEqual([
      { currency: "USDC", amount: "2500000", remainder: "0", token_decimals: 6, status: "confirmed" },
      {
        currency: "USDT",
        amount: "1000000",
        remainder: "500000000000",
        token_decimals: 18,
        status: "confirmed",
      },
    ]);
    // amount x 10^12 + remainder is exactly what the chain moved.
    const usdt = rows[1] as { amount: string; remainder: string };
    expect(BigInt(usdt.amount) * 10n ** 12n + BigInt(usdt.remainder)).toBe(1_000_000_500_000_000_000n);

    // Credited in whole micro-units only: 1.000000 USDT and 2.500000 USDC to the merchant.
    const credits = await queryRows<{ currency: string; amount: string }>(
      t.ctx.db,
      sql`SELECT d.currency, sum(p.amount)::text AS amount
          FROM ledger_transactions l JOIN ledger_postings p ON p.txn_id = l.id AND p.account = 'available'
          JOIN deposits d ON d.id::text = l.ref_id
          WHERE l.ref_type = 'deposit' AND d.deposit_address_id = ${addressId}::uuid
          GROUP BY d.currency ORDER BY d.currency`,
    );
    expect(credits).toEqual([
      { currency: "USDC", amount: "2500000" },
      { currency: "USDT", amount: "1000000" },
    ]);

    // The admin read: the list of deposits and the address's recent deposits.
    const list = await t.app.inject({ method: "GET", url: "/api/v1/admin/deposits", headers: { cookie } });
    expect(list.statusCode, list.body).toBe(200);
    const byHash = (data: { id: string; tx_hash: string }[], hash: string) =>
      data.find((d) => d.tx_hash === hash);
    expect(byHash(list.json().data, usdtHash)).toMatchObject({
      amount: "1.000000",
      remainder: "0.000000500000000000",
      currency: "USDT",
      chain: "bsc",
    });
    expect(byHash(list.json().data, usdcHash)).toMatchObject({ amount: "2.500000", remainder: "0.000000" });
    const detail = await t.app.inject({
      method: "GET",
      url: `/api/v1/admin/deposit-addresses/${addressId}`,
      headers: { cookie },
    });
    expect(detail.statusCode, detail.body).toBe(200);
    expect(byHash(detail.json().recent_deposits, usdtHash)).toMatchObject({
      remainder: "0.000000500000000000",
    });
    // The merchant's read carries the same added field.
    const mine = await t.app.inject({
      method: "GET",
      url: `/api/v1/deposits?deposit_address_id=${addressId}`,
      headers: { "x-api-key": shop.apiKey },
    });
    expect(mine.statusCode, mine.body).toBe(200);
    const deposit = byHash(mine.json().data, usdtHash)!;
    expect(deposit).toMatchObject({ amount: "1.000000", remainder: "0.000000500000000000" });
    const one = await t.app.inject({
      method: "GET",
      url: `/api/v1/deposits/${deposit.id}`,
      headers: { "x-api-key": shop.apiKey },
    });
    expect(one.json()).toMatchObject({ amount: "1.000000", remainder: "0.000000500000000000" });
    // The address's total is what was credited, not the remainder.
    expect(detail.json()).toMatchObject({ deposit_count: 2, total_received: "3.500000" });
  });
});

describe("deposit figures per chain and currency", () => {
  it("counts USDT and USDC deposits apart, and the chain and currency filters narrow them", async () => {
    const all = await stats();
    expect(all.total).toEqual({ deposit_count: 2, total_received: "3.500000" });
    expect(all.today).toEqual(all.total);
    expect(all.week).toEqual(all.total);
    // Two currencies add up in the top-level amounts: the reply says so.
    expect(all.currencies).toEqual(["USDC", "USDT"]);
    expect(all.by_chain_currency.map((r) => [r.chain, r.currency, r.total])).toEqual([
      ["bsc", "USDC", { deposit_count: 1, total_received: "2.500000" }],
      ["bsc", "USDT", { deposit_count: 1, total_received: "1.000000" }],
    ]);

    const usdc = await stats("?currency=USDC");
    expect(usdc.total).toEqual({ deposit_count: 1, total_received: "2.500000" });
    expect(usdc.currencies).toEqual(["USDC"]);
    const usdt = await stats("?chain=bsc&currency=USDT");
    expect(usdt.today).toEqual({ deposit_count: 1, total_received: "1.000000" });
    expect(usdt.by_chain_currency.map((r) => r.currency)).toEqual(["USDT"]);
    const elsewhere = await stats("?chain=ethereum");
    expect(elsewhere.total).toEqual({ deposit_count: 0, total_received: "0.000000" });
    expect(elsewhere).toMatchObject({ currencies: [], by_chain_currency: [] });

    // A bad filter changes nothing and is a clear 400.
    const bad = await t.app.inject({
      method: "GET",
      url: "/api/v1/admin/stats?currency=DAI",
      headers: { cookie },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: "INVALID_QUERY", error: expect.any(String) });
  });

  it("check-rollups recounts the deposit rollups per chain and currency and reports a planted wrong one", async () => {
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    // Plant: USDC's all-time counter moved to another chain, and a day's USDT amount off by one unit.
    await t.ctx.db.execute(sql`UPDATE deposit_rollups_total SET chain = 'polygon' WHERE currency = 'USDC'`);
    await t.ctx.db.execute(
      sql`UPDATE deposit_rollups_daily SET amount = amount + 1 WHERE currency = 'USDT' AND status = 'confirmed'`,
    );
    try {
      const found = (await checkRollups(t.ctx.db)).map((d) => [
        d.table,
        d.key.chain,
        d.key.currency,
        d.key.status,
        d.stored,
        d.actual,
      ]);
      expect(found).toEqual([
        ["deposit_rollups_daily", "bsc", "USDT", "confirmed", ["1", "1000001"], ["1", "1000000"]],
        ["deposit_rollups_total", "bsc", "USDC", "confirmed", ["0", "0"], ["1", "2500000"]],
        ["deposit_rollups_total", "polygon", "USDC", "confirmed", ["1", "2500000"], ["0", "0"]],
      ]);
    } finally {
      await t.ctx.db.execute(sql`UPDATE deposit_rollups_total SET chain = 'bsc' WHERE chain = 'polygon'`);
      await t.ctx.db.execute(
        sql`UPDATE deposit_rollups_daily SET amount = amount - 1 WHERE currency = 'USDT' AND status = 'confirmed'`,
      );
    }
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});

describe("a transfer of less than one micro-unit", () => {
  it("credits and records nothing, and the scanner goes on to the deposits after it", async () => {
    const count = async () =>
      queryRows<{ deposits: string; strays: string }>(
        t.ctx.db,
        sql`SELECT (SELECT count(*) FROM deposits)::text AS deposits,
                   (SELECT count(*) FROM stray_transfers)::text AS strays`,
      );
    const before = await count();
    // An order waiting for its payment on bsc.
    const order = await t.app.inject({
      method: "POST",
      url: "/api/v1/payments",
      headers: { "x-api-key": shop.apiKey, "content-type": "application/json" },
      payload: JSON.stringify({
        external_id: "dust-1",
        amount: "5",
        currency: "USDT",
        chain: "bsc",
        callback_url: receiver.url,
      }),
    });
    expect(order.statusCode, order.body).toBe(201);
    const { id: orderId, address: orderAddress } = order.json() as { id: string; address: string };
    const [free] = await queryRows<{ address: string }>(
      t.ctx.db,
      sql`SELECT address FROM addresses WHERE family = 'evm' AND status = 'free' ORDER BY derivation_index LIMIT 1`,
    );
    expect(free).toBeDefined();
    // 0.0000005 USDT to the static address, to a pool address and to the order's address
    // (address-poisoning dust), then a deposit of 2.000000000000000001 in the same block.
    await sendToken(bsc(), bsc().usdt18Contract, address, 500_000_000_000n);
    await sendToken(bsc(), bsc().usdt18Contract, free!.address, 999_999_999_999n);
    await sendToken(bsc(), bsc().usdt18Contract, orderAddress, 1n);
    const after = (
      await sendToken(bsc(), bsc().usdt18Contract, address, 2_000_000_000_000_000_001n)
    ).toLowerCase();
    await finalise();
    expect(await count()).toEqual([
      { deposits: String(Number(before[0]?.deposits) + 1), strays: before[0]?.strays },
    ]);
    const [deposit] = await queryRows<Record<string, string>>(
      t.ctx.db,
      sql`SELECT amount::text AS amount, remainder::text AS remainder, status FROM deposits WHERE tx_hash = ${after}`,
    );
    expect(deposit).toEqual({ amount: "2000000", remainder: "1", status: "confirmed" });
    // The pool address stays free: nothing reached it that could be credited.
    const [still] = await queryRows<{ status: string }>(
      t.ctx.db,
      sql`SELECT status FROM addresses WHERE address = ${free!.address}`,
    );
    expect(still).toEqual({ status: "free" });
    // The order saw no payment.
    const [pending] = await queryRows<Record<string, string>>(
      t.ctx.db,
      sql`SELECT status, amount_received::text AS received,
            (SELECT count(*) FROM transfers WHERE order_id = orders.id)::text AS transfers
          FROM orders WHERE id = ${orderId}::uuid`,
    );
    expect(pending).toEqual({ status: "pending", received: "0", transfers: "0" });
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});
