/**
 * The alert sender: claims due deliveries of the alert outbox with SKIP LOCKED and a lease (a
 * worker that dies mid-attempt leaves the lease to expire, and another sends it: at least once),
 * POSTs each, and records the result. A failure is retried after min(2^n × 5 s, 10 min); after
 * MAX_ALERT_ATTEMPTS the delivery is marked failed (the alert stays visible in the admin API).
 * Never called from a request handler.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { sendAlert, type AlertChannel } from "./alert-channels.js";

export const MAX_ALERT_ATTEMPTS = 20;
const LEASE_MS = 60_000;

export interface DeliverResult {
  delivered: number;
  failed: number;
}

interface Claimed extends Record<string, unknown> {
  id: string;
  alert_id: string;
  channel: AlertChannel;
  body: string;
  attempts: number;
}

export function alertRetryDelayMs(attempt: number): number {
  return Math.min(600_000, 5_000 * 2 ** Math.min(attempt - 1, 16));
}

export async function deliverDueAlerts(
  ctx: Context,
  options: { limit?: number; timeoutMs?: number } = {},
): Promise<DeliverResult> {
  const now = ctx.clock.now();
  const leaseUntil = new Date(now.getTime() + LEASE_MS).toISOString();
  const claimed = await queryRows<Claimed>(
    ctx.db,
    sql`UPDATE alert_deliveries SET locked_until = ${leaseUntil}::timestamptz
        WHERE id IN (
          SELECT id FROM alert_deliveries
          WHERE status = 'pending' AND next_attempt_at <= ${now.toISOString()}::timestamptz
            AND (locked_until IS NULL OR locked_until <= ${now.toISOString()}::timestamptz)
          ORDER BY next_attempt_at LIMIT ${options.limit ?? 20}
          FOR UPDATE SKIP LOCKED)
        RETURNING id, alert_id, channel, body, attempts`,
  );
  const result: DeliverResult = { delivered: 0, failed: 0 };
  await Promise.all(
    claimed.map(async (d) => {
      const sent = await sendAlert(ctx.config, d.channel, d.body, ctx.clock.now(), options.timeoutMs);
      const attempt = Number(d.attempts) + 1;
      const at = ctx.clock.now();
      if (sent.ok) {
        result.delivered += 1;
        await ctx.db.execute(
          sql`UPDATE alert_deliveries SET status = 'delivered', attempts = ${attempt}, delivered_at = ${at.toISOString()}::timestamptz,
                locked_until = NULL, last_error = NULL
              WHERE id = ${d.id} AND locked_until = ${leaseUntil}::timestamptz`,
        );
        return;
      }
      result.failed += 1;
      const final = attempt >= MAX_ALERT_ATTEMPTS;
      const next = new Date(at.getTime() + alertRetryDelayMs(attempt)).toISOString();
      await ctx.db.execute(
        sql`UPDATE alert_deliveries SET attempts = ${attempt}, last_error = ${sent.error ?? "failed"},
              status = ${final ? "failed" : "pending"}, next_attempt_at = ${next}::timestamptz, locked_until = NULL
            WHERE id = ${d.id} AND locked_until = ${leaseUntil}::timestamptz`,
      );
      const entry = { deliveryId: d.id, alertId: d.alert_id, channel: d.channel, attempt, error: sent.error };
      if (final) ctx.log.error(entry, "alert delivery gave up");
      else ctx.log.warn(entry, "alert delivery failed");
    }),
  );
  return result;
}
