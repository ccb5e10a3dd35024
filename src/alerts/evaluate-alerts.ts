/**
 * Fires and resolves operator alerts (DESIGN.md 2 and 11), safe in any number of workers at once:
 *  - a condition fires by inserting its firing row; the partial unique index lets exactly one
 *    insert win while it lasts, so it fires once; it resolves by a compare-and-set on that row's
 *    state, so it resolves once;
 *  - an event alert (an order reaching callback_failed, a sweep failing) is keyed by its order
 *    event, so each fires once; a confirmed stray transfer (`stray_transfer`) by its row, a
 *    failed address-level sweep by its settlement round, and a confirmed deposit to a disabled
 *    static address (`deposit_to_disabled_address`, issue 25) by its deposit, once each too;
 * and each transition writes its deliveries (one per configured channel) in the same transaction.
 * Nothing is sent here: the alert sender delivers the outbox (deliver-alerts.ts).
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { newId } from "../ids.js";
import { formatAmount } from "../money.js";
import { readAlertConditions, type ConditionReading, type Severity } from "./alert-conditions.js";
import { enqueueAlert as enqueue } from "./alert-outbox.js";

export interface EvaluateResult {
  fired: string[];
  resolved: string[];
}

/** Event alerts are taken from order events this recent (older ones predate the alerting). */
const EVENT_LOOKBACK_MS = 24 * 3600 * 1000;

export async function evaluateAlerts(
  ctx: Context,
  options: { headFreshMs?: number } = {},
): Promise<EvaluateResult> {
  const result: EvaluateResult = { fired: [], resolved: [] };
  const readings = await readAlertConditions(ctx, options);
  for (const reading of readings) {
    if (reading.firing === true && (await fireCondition(ctx, reading))) result.fired.push(reading.alert);
    if (reading.firing === false && (await resolveCondition(ctx, reading)))
      result.resolved.push(reading.alert);
  }
  result.fired.push(...(await fireEventAlerts(ctx)));
  result.fired.push(...(await fireStrayAlerts(ctx)));
  result.fired.push(...(await firePayoutFailedAlerts(ctx)));
  result.fired.push(...(await fireDisabledDepositAlerts(ctx)));
  if (result.fired.length > 0 || result.resolved.length > 0) {
    ctx.log.info({ fired: result.fired, resolved: result.resolved }, "operator alerts changed");
  }
  return result;
}

async function fireCondition(ctx: Context, reading: ConditionReading): Promise<boolean> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const id = newId();
    const rows = await queryRows<{ id: string }>(
      tx,
      sql`INSERT INTO alerts (id, alert, key, kind, severity, state, text, details, fired_at)
          VALUES (${id}, ${reading.alert}, ${reading.alert}, 'condition', ${reading.severity}, 'firing',
                  ${reading.text}, ${JSON.stringify(reading.details)}::jsonb, ${now.toISOString()}::timestamptz)
          ON CONFLICT (key) WHERE kind = 'condition' AND state = 'firing' DO NOTHING
          RETURNING id`,
    );
    if (rows.length === 0) return false;
    await enqueue(ctx, tx, {
      id,
      alert: reading.alert,
      severity: reading.severity,
      state: "firing",
      text: reading.text,
      details: reading.details,
      at: now,
    });
    return true;
  });
}

async function resolveCondition(ctx: Context, reading: ConditionReading): Promise<boolean> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const rows = await queryRows<{ id: string; severity: Severity }>(
      tx,
      sql`UPDATE alerts SET state = 'resolved', resolved_at = ${now.toISOString()}::timestamptz
          WHERE key = ${reading.alert} AND kind = 'condition' AND state = 'firing'
          RETURNING id, severity`,
    );
    const row = rows[0];
    if (!row) return false;
    await enqueue(ctx, tx, {
      id: row.id,
      alert: reading.alert,
      severity: row.severity,
      state: "resolved",
      text: reading.resolvedText,
      details: reading.details,
      at: now,
    });
    return true;
  });
}

interface EventRow extends Record<string, unknown> {
  event_id: string;
  event_type: "webhook_failed" | "sweep_failed";
  order_id: string;
  external_id: string;
  merchant_name: string;
  payload: unknown;
}

async function fireEventAlerts(ctx: Context): Promise<string[]> {
  const now = ctx.clock.now();
  const since = new Date(now.getTime() - EVENT_LOOKBACK_MS).toISOString();
  const events = await queryRows<EventRow>(
    ctx.db,
    sql`SELECT e.id AS event_id, e.event_type, e.order_id, o.external_id, m.name AS merchant_name, e.payload
        FROM order_events e JOIN orders o ON o.id = e.order_id JOIN merchants m ON m.id = o.merchant_id
        WHERE e.event_type IN ('webhook_failed', 'sweep_failed') AND e.created_at >= ${since}::timestamptz
          AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.kind = 'event' AND a.key = 'event:' || e.id::text)
        ORDER BY e.created_at LIMIT 100`,
  );
  const fired: string[] = [];
  for (const e of events) {
    const payload = (typeof e.payload === "string" ? JSON.parse(e.payload) : e.payload) as Record<
      string,
      unknown
    >;
    const reason = typeof payload.reason === "string" ? payload.reason.slice(0, 200) : "unknown";
    const alert = e.event_type === "webhook_failed" ? "callback_failed" : "sweep_failed";
    const text =
      alert === "callback_failed"
        ? `Order ${e.order_id} (${e.merchant_name}, ${e.external_id}) reached callback_failed: the merchant's webhook failed ${String(payload.attempt ?? "")} times (${reason})`
        : `Sweep of order ${e.order_id} (${e.merchant_name}, ${e.external_id}) failed at step ${String(payload.step ?? "?")}: ${reason}`;
    const details: Record<string, string | number | null> = {
      order_id: e.order_id,
      external_id: e.external_id,
      merchant: e.merchant_name,
      reason,
      attempt: typeof payload.attempt === "number" ? payload.attempt : null,
      ...(alert === "sweep_failed" ? { step: typeof payload.step === "string" ? payload.step : null } : {}),
    };
    const severity: Severity = alert === "sweep_failed" ? "critical" : "warning";
    const inserted = await ctx.db.transaction(async (tx) => {
      const id = newId();
      const rows = await queryRows<{ id: string }>(
        tx,
        sql`INSERT INTO alerts (id, alert, key, kind, severity, state, text, details, fired_at, resolved_at)
            VALUES (${id}, ${alert}, ${"event:" + e.event_id}, 'event', ${severity}, 'firing', ${text},
                    ${JSON.stringify(details)}::jsonb, ${now.toISOString()}::timestamptz, NULL)
            ON CONFLICT (key) WHERE kind = 'event' DO NOTHING
            RETURNING id`,
      );
      if (rows.length === 0) return false;
      await enqueue(ctx, tx, { id, alert, severity, state: "firing", text, details, at: now });
      return true;
    });
    if (inserted) fired.push(alert);
  }
  return fired;
}

interface StrayAlertRow extends Record<string, unknown> {
  key: string;
  alert: "stray_transfer" | "sweep_failed";
  address: string;
  amount: string | null;
  tx_hash: string | null;
  from_address: string | null;
  reason: string | null;
  step: string | null;
}

/**
 * Confirmed stray transfers and failed address-level sweeps (which have no order event to key on):
 * each fires once, keyed by its row.
 */
async function fireStrayAlerts(ctx: Context): Promise<string[]> {
  const now = ctx.clock.now();
  const since = new Date(now.getTime() - EVENT_LOOKBACK_MS).toISOString();
  const rows = await queryRows<StrayAlertRow>(
    ctx.db,
    sql`SELECT * FROM (
          SELECT 'stray:' || st.id::text AS key, 'stray_transfer' AS alert, st.to_address AS address,
                 st.amount::text AS amount, st.tx_hash, st.from_address, NULL AS reason, NULL AS step,
                 st.confirmed_at AS at
          FROM stray_transfers st
          WHERE st.status = 'confirmed' AND st.confirmed_at >= ${since}::timestamptz
          UNION ALL
          SELECT 'settlement:' || s.id::text || ':' || s.round::text, 'sweep_failed', s.address, NULL, NULL,
                 NULL, s.last_error, s.step, s.updated_at
          FROM settlements s
          WHERE s.order_id IS NULL AND s.status = 'failed' AND s.updated_at >= ${since}::timestamptz
        ) AS candidates
        WHERE NOT EXISTS (SELECT 1 FROM alerts a WHERE a.kind = 'event' AND a.key = candidates.key)
        ORDER BY at LIMIT 100`,
  );
  const fired: string[] = [];
  for (const r of rows) {
    const amount = r.amount === null ? null : formatAmount(BigInt(r.amount));
    const reason = (r.reason ?? "unknown").slice(0, 200);
    const text =
      r.alert === "stray_transfer"
        ? `Stray transfer: ${amount} USDT reached ${r.address}, an address no order holds (tx ${r.tx_hash}). Attach it to an order, refund or dismiss it.`
        : `Sweep of address ${r.address} (stray balance) failed at step ${r.step ?? "?"}: ${reason}`;
    const details: Record<string, string | number | null> =
      r.alert === "stray_transfer"
        ? { address: r.address, amount, tx_hash: r.tx_hash, from_address: r.from_address }
        : { address: r.address, reason, step: r.step };
    const severity: Severity = r.alert === "sweep_failed" ? "critical" : "warning";
    const inserted = await ctx.db.transaction(async (tx) => {
      const id = newId();
      const done = await queryRows<{ id: string }>(
        tx,
        sql`INSERT INTO alerts (id, alert, key, kind, severity, state, text, details, fired_at, resolved_at)
            VALUES (${id}, ${r.alert}, ${r.key}, 'event', ${severity}, 'firing', ${text},
                    ${JSON.stringify(details)}::jsonb, ${now.toISOString()}::timestamptz, NULL)
            ON CONFLICT (key) WHERE kind = 'event' DO NOTHING
            RETURNING id`,
      );
      if (done.length === 0) return false;
      await enqueue(ctx, tx, { id, alert: r.alert, severity, state: "firing", text, details, at: now });
      return true;
    });
    if (inserted) fired.push(r.alert);
  }
  return fired;
}

interface PayoutFailedRow extends Record<string, unknown> {
  event_id: string;
  payout_id: string;
  kind: string;
  amount: string;
  merchant_name: string;
  payload: unknown;
}

/** DESIGN.md 14: a refund or payout that failed on chain fires `payout_failed`, once per failure. */
async function firePayoutFailedAlerts(ctx: Context): Promise<string[]> {
  const now = ctx.clock.now();
  const since = new Date(now.getTime() - EVENT_LOOKBACK_MS).toISOString();
  const events = await queryRows<PayoutFailedRow>(
    ctx.db,
    sql`SELECT e.id AS event_id, p.id AS payout_id, p.kind, p.amount::text AS amount, m.name AS merchant_name,
               e.payload
        FROM payout_events e JOIN payouts p ON p.id = e.payout_id JOIN merchants m ON m.id = p.merchant_id
        WHERE e.to_status = 'failed' AND e.created_at >= ${since}::timestamptz
          AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.kind = 'event' AND a.key = 'event:' || e.id::text)
        ORDER BY e.created_at LIMIT 100`,
  );
  const fired: string[] = [];
  for (const e of events) {
    const payload = (typeof e.payload === "string" ? JSON.parse(e.payload) : e.payload) as Record<
      string,
      unknown
    >;
    const reason = typeof payload.reason === "string" ? payload.reason.slice(0, 200) : "unknown";
    const amount = formatAmount(BigInt(e.amount));
    const text = `A ${e.kind} of ${amount} USDT (${e.merchant_name}, ${e.payout_id}) failed on chain: ${reason}; its reservation was released`;
    const details = {
      payout_id: e.payout_id,
      kind: e.kind,
      merchant: e.merchant_name,
      amount_usdt: amount,
      reason,
      tx_hash: typeof payload.tx_hash === "string" ? payload.tx_hash : null,
    };
    const inserted = await ctx.db.transaction(async (tx) => {
      const id = newId();
      const rows = await queryRows<{ id: string }>(
        tx,
        sql`INSERT INTO alerts (id, alert, key, kind, severity, state, text, details, fired_at, resolved_at)
            VALUES (${id}, 'payout_failed', ${"event:" + e.event_id}, 'event', 'critical', 'firing', ${text},
                    ${JSON.stringify(details)}::jsonb, ${now.toISOString()}::timestamptz, NULL)
            ON CONFLICT (key) WHERE kind = 'event' DO NOTHING
            RETURNING id`,
      );
      if (rows.length === 0) return false;
      await enqueue(ctx, tx, {
        id,
        alert: "payout_failed",
        severity: "critical",
        state: "firing",
        text,
        details,
        at: now,
      });
      return true;
    });
    if (inserted) fired.push("payout_failed");
  }
  return fired;
}

interface DisabledDepositRow extends Record<string, unknown> {
  deposit_id: string;
  deposit_address_id: string;
  customer_ref: string;
  address: string;
  amount: string;
  tx_hash: string;
  from_address: string;
  merchant_name: string;
}

/**
 * DESIGN.md 15: a deposit to a disabled static address is credited and reported, and raises an
 * incident: `deposit_to_disabled_address` fires once per deposit when it is confirmed (a fork may
 * still drop an unconfirmed one, as for strays). Read through the deposit's incident event
 * (deposit_events_incident_idx), so an evaluation does not scan the deposits.
 */
async function fireDisabledDepositAlerts(ctx: Context): Promise<string[]> {
  const now = ctx.clock.now();
  const since = new Date(now.getTime() - EVENT_LOOKBACK_MS).toISOString();
  const rows = await queryRows<DisabledDepositRow>(
    ctx.db,
    sql`SELECT d.id::text AS deposit_id, d.deposit_address_id::text AS deposit_address_id, da.customer_ref,
               d.to_address AS address, d.amount::text AS amount, d.tx_hash, d.from_address,
               m.name AS merchant_name
        FROM deposit_events e
        JOIN deposits d ON d.id = e.deposit_id
        JOIN deposit_addresses da ON da.id = d.deposit_address_id
        JOIN merchants m ON m.id = d.merchant_id
        WHERE e.event_type = 'deposit_to_disabled_address' AND e.created_at >= ${since}::timestamptz
          AND d.status = 'confirmed'
          AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.kind = 'event' AND a.key = 'deposit:' || d.id::text)
        ORDER BY e.created_at LIMIT 100`,
  );
  const fired: string[] = [];
  for (const r of rows) {
    const amount = formatAmount(BigInt(r.amount));
    const text = `Deposit of ${amount} USDT to the disabled deposit address ${r.address} (${r.merchant_name}, customer_ref ${r.customer_ref}, tx ${r.tx_hash}): credited and reported all the same. Tell the merchant, or enable the address again.`;
    const details: Record<string, string | number | null> = {
      deposit_id: r.deposit_id,
      deposit_address_id: r.deposit_address_id,
      customer_ref: r.customer_ref,
      merchant: r.merchant_name,
      address: r.address,
      amount,
      tx_hash: r.tx_hash,
      from_address: r.from_address,
    };
    const inserted = await ctx.db.transaction(async (tx) => {
      const id = newId();
      const done = await queryRows<{ id: string }>(
        tx,
        sql`INSERT INTO alerts (id, alert, key, kind, severity, state, text, details, fired_at, resolved_at)
            VALUES (${id}, 'deposit_to_disabled_address', ${"deposit:" + r.deposit_id}, 'event', 'warning',
                    'firing', ${text}, ${JSON.stringify(details)}::jsonb, ${now.toISOString()}::timestamptz, NULL)
            ON CONFLICT (key) WHERE kind = 'event' DO NOTHING
            RETURNING id`,
      );
      if (done.length === 0) return false;
      await enqueue(ctx, tx, {
        id,
        alert: "deposit_to_disabled_address",
        severity: "warning",
        state: "firing",
        text,
        details,
        at: now,
      });
      return true;
    });
    if (inserted) fired.push("deposit_to_disabled_address");
  }
  return fired;
}
