/**
 * The sources of event alerts (DESIGN.md 2, 11, 14, 15). Each reads the recent events that have no
 * alert yet and says, per event, the alert's key, severity, text and details; evaluate-alerts.ts
 * fires them all alike, one insert keyed by `key`, so each fires once:
 *   - an order reaching callback_failed, or its sweep failing: keyed by the order event;
 *   - a confirmed stray transfer (by its row) and a failed address-level sweep (by its settlement
 *     round), which have no order event to key on;
 *   - a refund or payout that failed on chain, `payout_failed`: by its payout event;
 *   - a deposit to a disabled static address, `deposit_to_disabled_address`: by the deposit, once it
 *     is confirmed (a fork may still drop an unconfirmed one, as for strays). Read through the
 *     deposit's incident event (deposit_events_incident_idx), so an evaluation does not scan the
 *     deposits.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { formatAmount } from "../money.js";
import type { Severity } from "./alert-conditions.js";

/** One event alert to fire, once per key. */
export interface EventAlert {
  key: string;
  alert: string;
  severity: Severity;
  text: string;
  details: Record<string, string | number | null>;
}

/** Reads the events since `since` (ISO) that have no alert yet, at most 100. */
export type EventAlertSource = (ctx: Context, since: string) => Promise<EventAlert[]>;

function payloadOf(value: unknown): Record<string, unknown> {
  return (typeof value === "string" ? JSON.parse(value) : value) as Record<string, unknown>;
}

function reasonOf(payload: Record<string, unknown>): string {
  return typeof payload.reason === "string" ? payload.reason.slice(0, 200) : "unknown";
}

interface OrderEventRow extends Record<string, unknown> {
  event_id: string;
  event_type: "webhook_failed" | "sweep_failed";
  order_id: string;
  external_id: string;
  merchant_name: string;
  payload: unknown;
}

const orderEvents: EventAlertSource = async (ctx, since) => {
  const events = await queryRows<OrderEventRow>(
    ctx.db,
    sql`SELECT e.id AS event_id, e.event_type, e.order_id, o.external_id, m.name AS merchant_name, e.payload
        FROM order_events e JOIN orders o ON o.id = e.order_id JOIN merchants m ON m.id = o.merchant_id
        WHERE e.event_type IN ('webhook_failed', 'sweep_failed') AND e.created_at >= ${since}::timestamptz
          AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.kind = 'event' AND a.key = 'event:' || e.id::text)
        ORDER BY e.created_at LIMIT 100`,
  );
  return events.map((e): EventAlert => {
    const payload = payloadOf(e.payload);
    const reason = reasonOf(payload);
    const callback = e.event_type === "webhook_failed";
    return {
      key: `event:${e.event_id}`,
      alert: callback ? "callback_failed" : "sweep_failed",
      severity: callback ? "warning" : "critical",
      text: callback
        ? `Order ${e.order_id} (${e.merchant_name}, ${e.external_id}) reached callback_failed: the merchant's webhook failed ${String(payload.attempt ?? "")} times (${reason})`
        : `Sweep of order ${e.order_id} (${e.merchant_name}, ${e.external_id}) failed at step ${String(payload.step ?? "?")}: ${reason}`,
      details: {
        order_id: e.order_id,
        external_id: e.external_id,
        merchant: e.merchant_name,
        reason,
        attempt: typeof payload.attempt === "number" ? payload.attempt : null,
        ...(callback ? {} : { step: typeof payload.step === "string" ? payload.step : null }),
      },
    };
  });
};

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

const strays: EventAlertSource = async (ctx, since) => {
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
  return rows.map((r): EventAlert => {
    const amount = r.amount === null ? null : formatAmount(BigInt(r.amount));
    const reason = (r.reason ?? "unknown").slice(0, 200);
    const stray = r.alert === "stray_transfer";
    return {
      key: r.key,
      alert: r.alert,
      severity: stray ? "warning" : "critical",
      text: stray
        ? `Stray transfer: ${amount} USDT reached ${r.address}, an address no order holds (tx ${r.tx_hash}). Attach it to an order, refund or dismiss it.`
        : `Sweep of address ${r.address} (stray balance) failed at step ${r.step ?? "?"}: ${reason}`,
      details: stray
        ? { address: r.address, amount, tx_hash: r.tx_hash, from_address: r.from_address }
        : { address: r.address, reason, step: r.step },
    };
  });
};

interface PayoutFailedRow extends Record<string, unknown> {
  event_id: string;
  payout_id: string;
  kind: string;
  amount: string;
  merchant_name: string;
  payload: unknown;
}

const failedPayouts: EventAlertSource = async (ctx, since) => {
  const events = await queryRows<PayoutFailedRow>(
    ctx.db,
    sql`SELECT e.id AS event_id, p.id AS payout_id, p.kind, p.amount::text AS amount, m.name AS merchant_name,
               e.payload
        FROM payout_events e JOIN payouts p ON p.id = e.payout_id JOIN merchants m ON m.id = p.merchant_id
        WHERE e.to_status = 'failed' AND e.created_at >= ${since}::timestamptz
          AND NOT EXISTS (SELECT 1 FROM alerts a WHERE a.kind = 'event' AND a.key = 'event:' || e.id::text)
        ORDER BY e.created_at LIMIT 100`,
  );
  return events.map((e): EventAlert => {
    const payload = payloadOf(e.payload);
    const reason = reasonOf(payload);
    const amount = formatAmount(BigInt(e.amount));
    return {
      key: `event:${e.event_id}`,
      alert: "payout_failed",
      severity: "critical",
      text: `A ${e.kind} of ${amount} USDT (${e.merchant_name}, ${e.payout_id}) failed on chain: ${reason}; its reservation was released`,
      details: {
        payout_id: e.payout_id,
        kind: e.kind,
        merchant: e.merchant_name,
        amount_usdt: amount,
        reason,
        tx_hash: typeof payload.tx_hash === "string" ? payload.tx_hash : null,
      },
    };
  });
};

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

const disabledDeposits: EventAlertSource = async (ctx, since) => {
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
  return rows.map((r): EventAlert => {
    const amount = formatAmount(BigInt(r.amount));
    return {
      key: `deposit:${r.deposit_id}`,
      alert: "deposit_to_disabled_address",
      severity: "warning",
      text: `Deposit of ${amount} USDT to the disabled deposit address ${r.address} (${r.merchant_name}, customer_ref ${r.customer_ref}, tx ${r.tx_hash}): credited and reported all the same. Tell the merchant, or enable the address again.`,
      details: {
        deposit_id: r.deposit_id,
        deposit_address_id: r.deposit_address_id,
        customer_ref: r.customer_ref,
        merchant: r.merchant_name,
        address: r.address,
        amount,
        tx_hash: r.tx_hash,
        from_address: r.from_address,
      },
    };
  });
};

/** Every source, in the order an evaluation fires them. */
export const EVENT_ALERT_SOURCES: readonly EventAlertSource[] = [
  orderEvents,
  strays,
  failedPayouts,
  disabledDeposits,
];
