/**
 * Stray transfers end to end (DESIGN.md 4 and 13): USDT paid over the devnet with TronWeb to an
 * address no order holds is recorded and confirmed by the real scanner, raises the incident and the
 * operator alert, is listed by the admin API, keeps its address out of the pool until the address's
 * own settlement has swept it to the cold wallet, and can be attached to another order (outcome,
 * webhook, rollups).
 */
import { desc, eq, sql } from "drizzle-orm";
import { queryRows } from "../../src/db/query-rows.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateAlerts } from "../../src/alerts/evaluate-alerts.js";
import { addresses, orderEvents, strayTransfers, transfers, webhookDeliveries } from "../../src/db/schema.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { releaseAddresses } from "../../src/wallet/release-addresses.js";
import {
  addressRow,
  addressSettlement,
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

const admin = (method: "GET" | "POST", url: string, payload?: Record<string, unknown>) =>
  s.app.inject({ method, url, headers: { cookie: s.cookie }, ...(payload === undefined ? {} : { payload }) });

describe("a payment to a released address", () => {
  it("is a stray: recorded, alerted, listed, swept from its address, and attachable to another order", async () => {
    const { t } = s;
    // 1. An order is paid, completes, is swept, and its address goes back to the pool.
    const first = await t.order("10");
    await payAndConfirm(t, first.address, 10n * USDT);
    expect((await t.orderRow(first.id)).status).toBe("confirmed");
    await complete(t, first.id);
    await sweepAll(t);
    t.clock.advanceSeconds(QUARANTINE_S + 1);
    expect((await releaseAddresses(t.ctx)).released).toBeGreaterThanOrEqual(1);
    expect(await addressRow(t, first.address)).toMatchObject({ status: "free", orderId: null });
    const coldBefore = await usdtBalance(t.devnet, s.cold);
    expect(coldBefore).toBe(10n * USDT);

    // 2. The payer pays "the same address as last time".
    const txid = await t.pay(first.address, 3n * USDT);
    t.mine(1);
    await t.scanner.sync();
    const [seen] = await straysTo(t, first.address);
    expect(seen).toMatchObject({
      txHash: txid,
      amount: 3n * USDT,
      status: "seen",
      previousOrderId: first.id,
    });
    // Out of the pool at once, and not credited to the old order.
    expect(await addressRow(t, first.address)).toMatchObject({ status: "allocated", orderId: null });
    expect((await t.orderRow(first.id)).amountReceived).toBe(10n * USDT);
    expect(await t.transfersOf(first.id)).toHaveLength(1);

    // 3. Confirmed like a payment; then the incident, the alert and the admin list.
    await t.finalize();
    expect((await straysTo(t, first.address))[0]?.status).toBe("confirmed");
    expect(await addressSettlement(t, first.address)).toMatchObject({ status: "waiting", orderId: null });
    expect((await evaluateAlerts(t.ctx)).fired).toContain("stray_transfer");
    const [alert] = await queryRows<{ text: string }>(
      t.ctx.db,
      sql`SELECT text FROM alerts WHERE alert = 'stray_transfer'`,
    );
    expect(alert?.text).toContain(first.address);
    expect(alert?.text).toContain("3.000000");
    expect((await evaluateAlerts(t.ctx)).fired).not.toContain("stray_transfer"); // once

    const incidents = await admin("GET", "/api/v1/admin/incidents");
    expect(incidents.statusCode).toBe(200);
    expect(incidents.json().stray_transfers).toEqual([
      expect.objectContaining({
        tx_hash: txid,
        address: first.address,
        amount: "3.000000",
        resolution: null,
      }),
    ]);
    const list = await admin("GET", "/api/v1/admin/stray-transfers");
    expect(list.json()).toMatchObject({
      data: [
        { tx_hash: txid, status: "confirmed", previous_order_id: first.id, sweep: { status: "waiting" } },
      ],
      pagination: { total: 1 },
    });
    const strayId = list.json().data[0].id as string;

    // 4. The address is never handed to a new order while it holds the balance.
    const fresh = await Promise.all([t.order("1"), t.order("1"), t.order("1")]);
    expect(fresh.map((o) => o.address)).not.toContain(first.address);
    t.clock.advanceSeconds(QUARANTINE_S * 10);
    await releaseAddresses(t.ctx);
    expect((await addressRow(t, first.address))?.status).toBe("allocated");

    // 5. Swept by a settlement of the address's own: the cold wallet gets exactly the stray.
    await sweepAll(t);
    expect(await addressSettlement(t, first.address)).toMatchObject({
      status: "completed",
      step: "swept",
      amount: 3n * USDT,
    });
    expect(await usdtBalance(t.devnet, s.cold)).toBe(coldBefore + 3n * USDT);
    expect(await usdtBalance(t.devnet, first.address)).toBe(0n);
    const detail = await admin("GET", `/api/v1/admin/stray-transfers/${strayId}`);
    expect(detail.json()).toMatchObject({
      stray: { sweep: { status: "swept" } },
      address: { address: first.address, last_order_id: first.id, settlement: { status: "completed" } },
    });

    // 6. Attached to the order the payer meant: credited as if it had reached its address.
    const meant = await t.order("3");
    const attach = await admin("POST", `/api/v1/admin/orders/${meant.id}/attach-transfer`, {
      tx_hash: txid,
      reason: "customer paid order 2 to last month's address",
    });
    expect(attach.statusCode).toBe(200);
    expect(attach.json()).toMatchObject({
      order: { status: "confirmed", amount_received: "3.000000", tx_hash: txid },
      resolutions: [
        { action: "attach", reason: "customer paid order 2 to last month's address", tx_hash: txid },
      ],
    });
    expect(await t.events(meant.id)).toEqual([
      "order_created",
      "transfer_attached",
      "payment_detected",
      "payment_confirmed",
    ]);
    const [hook] = await t.deliveries(meant.id);
    expect(hook).toMatchObject({ event: "payment.confirmed", status: "pending" });
    expect(JSON.parse(hook?.payload ?? "{}")).toMatchObject({
      amount_received: "3.000000",
      tx_hash: txid,
      status: "confirmed",
    });
    const [row] = await t.ctx.db.select().from(strayTransfers).where(eq(strayTransfers.id, strayId));
    expect(row).toMatchObject({ resolution: "attached", orderId: meant.id });
    // Nothing new to sweep for the order: the money was swept from the stray's address already.
    await sweepAll(t);
    expect(await usdtBalance(t.devnet, s.cold)).toBe(coldBefore + 3n * USDT);

    // Rollups and the books agree; after its quarantine the address returns to the pool.
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    const stats = await admin("GET", "/api/v1/admin/stats");
    expect(stats.json().stray_transfers).toEqual({
      count: 1,
      amount: "3.000000",
      unresolved_count: 0,
      unresolved_amount: "0.000000",
      dust_addresses: 0,
      dust_amount: "0.000000",
    });
    t.clock.advanceSeconds(QUARANTINE_S + 1);
    await releaseAddresses(t.ctx);
    expect(await addressRow(t, first.address)).toMatchObject({ status: "free", orderId: null });
  }, 180_000);

  it("refuses to attach one stray to a second order, changing nothing", async () => {
    const { t } = s;
    const target = await t.order("2");
    const stray = (await admin("GET", "/api/v1/admin/stray-transfers")).json().data[0];
    expect(stray.resolution).toBe("attached");
    const before = {
      order: await t.orderRow(target.id),
      events: await t.events(target.id),
      transfers: await t.ctx.db.select().from(transfers).where(eq(transfers.txHash, stray.tx_hash)),
    };
    const again = await admin("POST", `/api/v1/admin/orders/${target.id}/attach-transfer`, {
      tx_hash: stray.tx_hash,
      reason: "second try",
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe("INVALID_STATE");
    expect(await t.orderRow(target.id)).toEqual(before.order);
    expect(await t.events(target.id)).toEqual(before.events);
    expect(await t.ctx.db.select().from(transfers).where(eq(transfers.txHash, stray.tx_hash))).toEqual(
      before.transfers,
    );
    // Without a reason: 400 INVALID_BODY before anything is looked at.
    const bare = await admin("POST", `/api/v1/admin/orders/${target.id}/attach-transfer`, {
      tx_hash: stray.tx_hash,
    });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().code).toBe("INVALID_BODY");
    // An unknown hash is not a stray.
    const unknown = await admin("POST", `/api/v1/admin/orders/${target.id}/attach-transfer`, {
      tx_hash: "ab".repeat(32),
      reason: "typo",
    });
    expect(unknown.statusCode).toBe(404);
    expect(await t.orderRow(target.id)).toEqual(before.order);
  });

  it("dismisses a stray with a reason, once", async () => {
    const { t } = s;
    // An address never handed out (the pool filler derived it; no order ever held it).
    await fillAddressPool(t.ctx);
    const [spare] = await t.ctx.db
      .select()
      .from(addresses)
      .where(eq(addresses.status, "free"))
      .orderBy(desc(addresses.derivationIndex))
      .limit(1);
    if (!spare) throw new Error("no free address in the pool");
    const txid = await payAndConfirm(t, spare.address, 1n * USDT + 1n);
    const [stray] = await straysTo(t, spare.address);
    expect(stray).toMatchObject({ txHash: txid, previousOrderId: null, status: "confirmed" });
    const noReason = await admin("POST", `/api/v1/admin/stray-transfers/${stray?.id}/dismiss`, {});
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json().code).toBe("INVALID_BODY");
    const dismissed = await admin("POST", `/api/v1/admin/stray-transfers/${stray?.id}/dismiss`, {
      reason: "operator's own test transfer",
    });
    expect(dismissed.statusCode).toBe(200);
    expect(dismissed.json()).toMatchObject({
      resolution: "dismissed",
      resolution_reason: "operator's own test transfer",
      resolved_by: { kind: "operator" },
    });
    const twice = await admin("POST", `/api/v1/admin/stray-transfers/${stray?.id}/dismiss`, {
      reason: "again",
    });
    expect(twice.statusCode).toBe(409);
    // Dismissed, and swept all the same.
    await sweepAll(t);
    expect(await usdtBalance(t.devnet, spare.address)).toBe(0n);
    const unresolvedFirst = (await admin("GET", "/api/v1/admin/stray-transfers?state=resolved")).json();
    expect(unresolvedFirst.data.map((d: { resolution: string }) => d.resolution).sort()).toEqual([
      "attached",
      "dismissed",
    ]);
    expect(await checkRollups(t.ctx.db)).toEqual([]);
    // The order events table never saw the stray (it has no order).
    expect(
      await t.ctx.db.select().from(orderEvents).where(eq(orderEvents.eventType, "transfer_attached")),
    ).toHaveLength(1);
    expect(await t.ctx.db.select().from(webhookDeliveries)).not.toHaveLength(0);
  });
});
