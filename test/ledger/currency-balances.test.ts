/**
 * A merchant's balance is per currency (DESIGN.md 16 "Balances"), whatever chain the money came on:
 * USDC paid on an EVM chain (the Anvil devnet over HTTP) and USDT paid on TRON (the TRON devnet)
 * are credited to separate balances; a USDT payout is refused with 409 INSUFFICIENT_BALANCE while
 * only USDC is available; a USDC payout reserves USDC; `balance` stays the USDT balance (SPEC) and
 * `balances` shows every enabled currency; check-ledger passes over both chains and fails on a
 * posting planted in the wrong currency.
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { Wallet } from "ethers";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import { queryRows } from "../../src/db/query-rows.js";
import { buildApp } from "../../src/http/app.js";
import { SYSTEM_ACTOR } from "../../src/audit/audit-types.js";
import { getBalanceBreakdowns } from "../../src/ledger/balance-breakdown.js";
import { attachStrayTransfer } from "../../src/strays/attach-stray-transfer.js";
import { checkLedger, formatLedgerDifference } from "../../src/ledger/check-ledger.js";
import { FAST_RETRY, startChainTest, type ChainTest } from "../chain/helpers.js";
import { adminCookie } from "../helpers/admin.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { addMerchant, orderBody, type TestMerchant } from "../payments/helpers.js";

const eth = evmDevnetForFile();
const EVM_RECIPIENT = Wallet.createRandom().address;
const TRON_RECIPIENT = "TJRabPrwbZy45sbavfcjinPJC18kjpRTv8";
let t: ChainTest;
let app: FastifyInstance;
let shop: TestMerchant;
let ethScanner: Scanner;

beforeAll(async () => {
  t = await startChainTest({
    env: {
      CHAINS: "tron,ethereum",
      ...evmChainEnv("ethereum", eth()),
      EVM_HOT_WALLET_PRIVATE_KEY: "0x" + randomBytes(32).toString("hex"),
      EVM_COLD_WALLET_ADDRESS: Wallet.createRandom().address,
    },
  });
  app = await buildApp(t.ctx);
  await app.ready();
  shop = await addMerchant(t.ctx, "Two Currencies");
  const chain = t.ctx.chains.get("ethereum");
  if (!chain) throw new Error("ethereum is not enabled");
  ethScanner = createScanner(t.ctx, { chain, retry: FAST_RETRY, maxIdleMs: 20 });
  await ethScanner.sync();
  await t.scanner.sync();
}, 60_000);
afterAll(async () => {
  await app?.close();
  await t?.close();
});

const call = (method: "GET" | "POST", url: string, payload?: Record<string, unknown>) =>
  app.inject({ method, url, headers: { "x-api-key": shop.apiKey }, ...(payload ? { payload } : {}) });

async function order(chain: string, currency: string, amount: string) {
  const res = await call("POST", "/api/v1/payments", orderBody({ chain, currency, amount }));
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; address: string };
}

async function status(id: string): Promise<string | undefined> {
  const [row] = await queryRows<{ status: string }>(
    t.ctx.db,
    sql`SELECT status FROM orders WHERE id = ${id}::uuid`,
  );
  return row?.status;
}

/** Pays a USDC order on Anvil and scans past the finality depth. */
async function payUsdc(amount: string, units: bigint) {
  const o = await order("ethereum", "USDC", amount);
  await sendToken(eth(), eth().usdcContract, o.address, units);
  await eth().mine(eth().finalityDepth + 2);
  await ethScanner.sync();
  expect(await status(o.id)).toBe("confirmed");
  return o;
}

async function me() {
  const res = await call("GET", "/api/v1/merchant/me");
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { balance: unknown; balances: unknown };
}

describe("balances per currency", () => {
  it("refuses a USDT payout when only USDC was credited", async () => {
    await payUsdc("25", 25_000_000n);
    const refused = await call("POST", "/api/v1/payouts", {
      external_id: "usdt-from-usdc",
      amount: "10",
      address: TRON_RECIPIENT,
    });
    expect([refused.statusCode, refused.json().code], refused.body).toEqual([409, "INSUFFICIENT_BALANCE"]);
    const [row] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM payouts WHERE merchant_id = ${shop.id}::uuid`,
    );
    expect(row?.n).toBe(0);
    // SPEC's `balance` is the USDT balance: nothing there; the USDC is in `balances`.
    expect(await me()).toMatchObject({
      balance: { available: "0.000000", reserved: "0.000000" },
      balances: {
        USDT: { available: "0.000000", reserved: "0.000000" },
        USDC: { available: "25.000000", reserved: "0.000000" },
      },
    });
  });

  it("credits USDT paid on TRON and USDC paid on ethereum to separate balances", async () => {
    const o = await order("tron", "USDT", "10");
    await t.pay(o.address, 10_000_000n);
    await t.finalize();
    expect(await status(o.id)).toBe("confirmed");
    const rows = await queryRows<{ currency: string; account: string; amount: string }>(
      t.ctx.db,
      sql`SELECT p.currency, p.account, p.amount::text AS amount
          FROM ledger_transactions t JOIN ledger_postings p ON p.txn_id = t.id
          WHERE t.merchant_id = ${shop.id}::uuid ORDER BY p.currency, p.account`,
    );
    expect(rows).toEqual([
      { currency: "USDC", account: "available", amount: "25000000" },
      { currency: "USDC", account: "received", amount: "-25000000" },
      { currency: "USDT", account: "available", amount: "10000000" },
      { currency: "USDT", account: "received", amount: "-10000000" },
    ]);
    expect(await me()).toEqual(
      expect.objectContaining({
        balance: { available: "10.000000", reserved: "0.000000" },
        balances: {
          USDT: { available: "10.000000", reserved: "0.000000" },
          USDC: { available: "25.000000", reserved: "0.000000" },
        },
      }),
    );
  });

  it("reserves a USDC payout from USDC only, and judges each currency alone", async () => {
    const usdc = await call("POST", "/api/v1/payouts", {
      external_id: "usdc-out",
      chain: "ethereum",
      currency: "USDC",
      amount: "5",
      address: EVM_RECIPIENT,
    });
    expect(usdc.statusCode, usdc.body).toBe(201);
    expect(await me()).toMatchObject({
      balance: { available: "10.000000", reserved: "0.000000" },
      balances: {
        USDT: { available: "10.000000", reserved: "0.000000" },
        USDC: { available: "20.000000", reserved: "5.000000" },
      },
    });
    // 20.000001 USDC is more than the USDC available, though USDT + USDC would cover it.
    const tooMuch = await call("POST", "/api/v1/payouts", {
      external_id: "usdc-too-much",
      chain: "ethereum",
      currency: "USDC",
      amount: "20.000001",
      address: EVM_RECIPIENT,
    });
    expect([tooMuch.statusCode, tooMuch.json().code]).toEqual([409, "INSUFFICIENT_BALANCE"]);
    // The whole USDT balance may go out in USDT.
    const usdt = await call("POST", "/api/v1/payouts", {
      external_id: "usdt-out",
      amount: "10",
      address: TRON_RECIPIENT,
    });
    expect(usdt.statusCode, usdt.body).toBe(201);
    expect((await me()).balances).toEqual({
      USDT: { available: "0.000000", reserved: "10.000000" },
      USDC: { available: "20.000000", reserved: "5.000000" },
    });
    const breakdowns = await getBalanceBreakdowns(t.ctx.db, shop.id);
    expect(breakdowns.USDC).toMatchObject({
      payments: 25_000_000n,
      pending: -5_000_000n,
      available: 20_000_000n,
    });
    expect(breakdowns.USDT).toMatchObject({ payments: 10_000_000n, pending: -10_000_000n, available: 0n });
  });

  it("shows every currency's balance and breakdown in the admin merchant detail", async () => {
    const res = await app.inject({
      method: "GET",
      url: `/api/v1/admin/merchants/${shop.id}`,
      headers: { cookie: await adminCookie(app) },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.balance).toEqual({ available: "0.000000", reserved: "10.000000" });
    expect(body.balances).toEqual({
      USDT: { available: "0.000000", reserved: "10.000000" },
      USDC: { available: "20.000000", reserved: "5.000000" },
    });
    expect(body.balance_breakdown).toMatchObject({ payments: "10.000000", available: "0.000000" });
    expect(body.balance_breakdowns.USDC).toMatchObject({
      payments: "25.000000",
      pending: "-5.000000",
      available: "20.000000",
    });
  });

  it("records a stray's token and never attaches it to an order in another currency", async () => {
    const o = await order("ethereum", "USDC", "3");
    // USDT sent to the USDC order's address: a stray on ethereum, of USDT.
    const hash = await sendToken(eth(), eth().usdtContract, o.address, 3_000_000n);
    await eth().mine(eth().finalityDepth + 2);
    await ethScanner.sync();
    const [stray] = await queryRows<{ currency: string; status: string }>(
      t.ctx.db,
      sql`SELECT currency, status, tx_hash FROM stray_transfers WHERE to_address = ${o.address.toLowerCase()}`,
    );
    expect(stray, JSON.stringify(await queryRows(t.ctx.db, sql`SELECT * FROM stray_transfers`))).toEqual({
      currency: "USDT",
      status: "confirmed",
      tx_hash: expect.any(String),
    });
    const before = (await me()).balances;
    await expect(
      attachStrayTransfer(t.ctx, { orderId: o.id, txHash: hash, actor: SYSTEM_ACTOR, reason: "wrong token" }),
    ).rejects.toMatchObject({
      code: "INVALID_STATE",
      message: expect.stringContaining("the order takes USDC"),
    });
    expect(await status(o.id)).toBe("pending");
    expect((await me()).balances).toEqual(before);
  });

  it("check-ledger passes over both chains and finds a posting planted in the wrong currency", async () => {
    expect(await checkLedger(t.ctx.db)).toEqual([]);
    // Plant: the USDC payment's credit to `available` written as USDT (rolled back afterwards).
    const planted = await t.ctx.db
      .transaction(async (tx) => {
        await tx.execute(sql`UPDATE ledger_postings SET currency = 'USDT'
          WHERE merchant_id = ${shop.id}::uuid AND currency = 'USDC' AND account = 'available' AND amount = 25000000`);
        const found = await checkLedger(tx);
        throw Object.assign(new Error("rollback"), { found });
      })
      .catch((error: { found?: Awaited<ReturnType<typeof checkLedger>> }) => error.found ?? []);
    const lines = planted.map(formatLedgerDifference);
    expect(planted.map((d) => [d.check, d.key.currency])).toEqual(
      expect.arrayContaining([
        ["unbalanced_transaction", "USDC"],
        ["unbalanced_transaction", "USDT"],
        ["stored_balance", "USDT"],
        ["recount", "USDT"],
      ]),
    );
    expect(
      lines.some((line) => line.includes(`merchant_id=${shop.id} currency=USDT account=available`)),
    ).toBe(true);
    expect(await checkLedger(t.ctx.db)).toEqual([]);
  });
});
