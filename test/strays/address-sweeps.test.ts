/**
 * The sweep of a stray transfer's address (its own settlement, DESIGN.md 4), over the devnet with
 * the real scanner, confirmer and sweeper:
 *  - with an empty hot wallet the sweep fails after its attempts; POST
 *    /admin/stray-transfers/:id/retry-sweep (support may, a viewer may not; audit row) re-queues it
 *    once the wallet is funded, and the chain shows exactly one transfer of the stray's amount to
 *    the cold wallet;
 *  - dust below SWEEP_MIN_USDT is not swept and keeps its address out of the pool (no order's sweep
 *    may carry it); after SWEEP_MIN_USDT is lowered, retry-sweep sweeps it and the address is
 *    freed.
 */
import { eq } from "drizzle-orm";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateAlerts } from "../../src/alerts/evaluate-alerts.js";
import { createContext } from "../../src/context.js";
import { auditLog } from "../../src/db/schema.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { retryStraySweep } from "../../src/strays/retry-stray-sweep.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import { SWEEP_MAX_ATTEMPTS } from "../../src/sweeps/sweep-plan.js";
import { releaseAddresses } from "../../src/wallet/release-addresses.js";
import { buildApp } from "../../src/http/app.js";
import { adminCookie } from "../helpers/admin.js";
import { createOperatorViaApi, operatorCookie } from "../helpers/operators.js";
import { chainTransfers, SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";
import {
  addressRow,
  addressSettlement,
  payAndConfirm,
  QUARANTINE_S,
  spareAddress,
  straysTo,
  sweepAll,
  USDT,
} from "./helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

let t: ChainTest;
let app: Awaited<ReturnType<typeof buildApp>>;
let owner: string;
let support: string;
let viewer: string;
let hot: string;
let cold: string;
let fromBlock: number;

beforeAll(async () => {
  const hotAccount = await TronWeb.createAccount();
  const coldAccount = await TronWeb.createAccount();
  hot = hotAccount.address.base58;
  cold = coldAccount.address.base58;
  // The hot wallet starts empty: a sweep cannot pay its fee.
  t = await startChainTest({
    env: {
      HOT_WALLET_PRIVATE_KEY: hotAccount.privateKey,
      COLD_WALLET_ADDRESS: cold,
      SWEEP_ENABLED: "true",
      SWEEP_MIN_USDT: "1",
      ADDRESS_QUARANTINE_SECONDS: String(QUARANTINE_S),
      POOL_MIN_FREE: "4",
    },
  });
  await t.scanner.sync();
  fromBlock = (await t.cursor()) ?? 0;
  app = await buildApp(t.ctx);
  await app.ready();
  owner = await adminCookie(app);
  await createOperatorViaApi(app, owner, { email: "support@example.com", role: "support" });
  await createOperatorViaApi(app, owner, { email: "viewer@example.com", role: "viewer" });
  support = await operatorCookie(app, "support@example.com");
  viewer = await operatorCookie(app, "viewer@example.com");
}, 120_000);
afterAll(async () => {
  await app?.close();
  await t?.close();
});

const retry = (id: string, cookie: string) =>
  app.inject({
    method: "POST",
    url: `/api/v1/admin/stray-transfers/${id}/retry-sweep`,
    headers: { cookie },
  });

/** Transfers to the cold wallet on the chain itself since the test began. */
async function coldTransfers(): Promise<string[]> {
  const head = Number((await t.ctx.chain.client.getNowBlock()).block_header.raw_data.number);
  return chainTransfers(t, new Set([cold]), fromBlock, head);
}

describe("retry-sweep of a stray's address", () => {
  it("re-queues a failed sweep, which then moves the stray's amount to the cold wallet once", async () => {
    const address = await spareAddress(t);
    await payAndConfirm(t, address, 5n * USDT);
    const [stray] = await straysTo(t, address);
    if (!stray) throw new Error("stray not recorded");

    // Nothing is due yet: 409 and nothing changes.
    const early = await retry(stray.id, support);
    expect(early.statusCode).toBe(409);
    expect(early.json().code).toBe("INVALID_STATE");
    expect(await addressSettlement(t, address)).toMatchObject({ status: "waiting", attempts: 0 });

    // The sweeper fails after its attempts (the hot wallet cannot fund the sweep).
    for (let i = 0; i < SWEEP_MAX_ATTEMPTS + 4; i++) {
      if ((await addressSettlement(t, address))?.status === "failed") break;
      t.devnet.mine(SOLIDIFY_AFTER + 1);
      t.clock.advance(31 * 60_000);
      await runDueSweeps(t.ctx);
    }
    const failed = await addressSettlement(t, address);
    expect(
      failed,
      JSON.stringify(failed, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v)),
    ).toMatchObject({ status: "failed", attempts: SWEEP_MAX_ATTEMPTS });
    expect((await evaluateAlerts(t.ctx)).fired).toContain("sweep_failed");
    const listed = await app.inject({
      method: "GET",
      url: `/api/v1/admin/stray-transfers/${stray.id}`,
      headers: { cookie: viewer },
    });
    expect(listed.json().stray.sweep.status).toBe("failed");

    // Refused: a viewer (403), an unknown stray (404); nothing changes.
    const forbidden = await retry(stray.id, viewer);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().code).toBe("ADMIN_FORBIDDEN");
    expect((await retry("00000000-0000-4000-8000-000000000000", support)).statusCode).toBe(404);
    expect((await retry("not-a-uuid", support)).statusCode).toBe(404);
    expect(await addressSettlement(t, address)).toMatchObject({ status: "failed" });
    expect(await t.ctx.db.select().from(auditLog).where(eq(auditLog.action, "stray.retry_sweep"))).toEqual(
      [],
    );

    // Funded, and retried by support: waiting again, with a fresh attempt budget and an audit row.
    await t.devnetPost("/devnet/fund", { address: hot, trx: "500", solidify: true });
    const retried = await retry(stray.id, support);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toMatchObject({ id: stray.id, sweep: { status: "waiting" } });
    expect(await addressSettlement(t, address)).toMatchObject({
      status: "waiting",
      attempts: 0,
      lastError: null,
    });
    const audit = await t.ctx.db.select().from(auditLog).where(eq(auditLog.action, "stray.retry_sweep"));
    expect(audit).toEqual([
      expect.objectContaining({
        actorKind: "operator",
        actorLabel: "support@example.com",
        targetType: "stray_transfer",
        targetId: stray.id,
        before: expect.objectContaining({ settlement_status: "failed" }),
      }),
    ]);
    // A second retry while it waits is refused.
    expect((await retry(stray.id, support)).statusCode).toBe(409);

    await sweepAll(t);
    expect(await addressSettlement(t, address)).toMatchObject({
      status: "completed",
      step: "swept",
      amount: 5n * USDT,
    });
    expect(await usdtBalance(t.devnet, address)).toBe(0n);
    expect(await usdtBalance(t.devnet, cold)).toBe(5n * USDT);
    expect(await coldTransfers()).toHaveLength(1);
    t.clock.advanceSeconds(QUARANTINE_S + 1);
    await releaseAddresses(t.ctx);
    expect((await addressRow(t, address))?.status).toBe("free");
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  }, 240_000);

  it("leaves dust below SWEEP_MIN_USDT on its address, out of the pool, until a retry after lowering the minimum", async () => {
    const address = await spareAddress(t);
    const coldBefore = await usdtBalance(t.devnet, cold);
    const coldTransfersBefore = (await coldTransfers()).length;
    await payAndConfirm(t, address, USDT / 2n);
    const [stray] = await straysTo(t, address);
    if (!stray) throw new Error("stray not recorded");
    await sweepAll(t);
    expect(await addressSettlement(t, address)).toMatchObject({
      status: "completed",
      step: "below_minimum",
      amount: USDT / 2n,
    });
    expect(await usdtBalance(t.devnet, address)).toBe(USDT / 2n);
    const view = await app.inject({
      method: "GET",
      url: `/api/v1/admin/stray-transfers/${stray.id}`,
      headers: { cookie: viewer },
    });
    expect(view.json().stray.sweep).toMatchObject({ status: "below_minimum", sweep_tx_hash: null });
    const dust = async () =>
      (await app.inject({ method: "GET", url: "/api/v1/admin/stats", headers: { cookie: viewer } })).json()
        .stray_transfers;
    expect(await dust()).toMatchObject({ dust_addresses: 1, dust_amount: "0.500000" });

    // Held: long past its quarantine it is still out of the pool, and new orders never get it.
    t.clock.advanceSeconds(QUARANTINE_S * 10);
    await releaseAddresses(t.ctx);
    expect(await addressRow(t, address)).toMatchObject({ status: "allocated", orderId: null });
    const fresh = await Promise.all([t.order("1"), t.order("1")]);
    expect(fresh.map((o) => o.address)).not.toContain(address);

    // Retrying with the same minimum finds the same dust (a new round, still below it)...
    expect((await retry(stray.id, support)).statusCode).toBe(200);
    await sweepAll(t);
    expect(await addressSettlement(t, address)).toMatchObject({ status: "completed", step: "below_minimum" });
    expect(await usdtBalance(t.devnet, cold)).toBe(coldBefore);

    // ...and once the operator lowers SWEEP_MIN_USDT, a retry sweeps it and frees the address.
    const lowered = await createContext(
      { ...t.config, sweepMinUsdt: 100_000n },
      {
        database: t.testDb.database,
        clock: t.clock,
        chain: t.ctx.chain,
        metrics: t.ctx.metrics,
        log: t.ctx.log,
      },
    );
    const view2 = await retryStraySweep(lowered, stray.id);
    expect(view2.sweep.status).toBe("waiting");
    for (let i = 0; i < 16 && (await addressSettlement(t, address))?.status !== "completed"; i++) {
      t.devnet.mine(SOLIDIFY_AFTER + 1);
      t.clock.advance(31 * 60_000);
      await runDueSweeps(lowered);
    }
    expect(await addressSettlement(t, address)).toMatchObject({
      status: "completed",
      step: "swept",
      amount: USDT / 2n,
    });
    expect(await usdtBalance(t.devnet, cold)).toBe(coldBefore + USDT / 2n);
    expect(await dust()).toMatchObject({ dust_addresses: 0, dust_amount: "0.000000" });
    expect(await coldTransfers()).toHaveLength(coldTransfersBefore + 1);
    t.clock.advanceSeconds(QUARANTINE_S + 1);
    await releaseAddresses(t.ctx);
    expect((await addressRow(t, address))?.status).toBe("free");
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  }, 240_000);
});
