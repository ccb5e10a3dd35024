/**
 * Claims due webhook deliveries for one worker: a single short statement picks pending rows whose
 * time has come and whose lease is free or expired, skipping rows another worker is claiming right
 * now (FOR UPDATE SKIP LOCKED), and stamps them with this claim's lease. The HTTP attempt happens
 * after this commits; a worker that dies mid-attempt leaves the lease to expire and another worker
 * takes the delivery over (at-least-once).
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";

export interface ClaimedDelivery {
  id: string;
  /** The order of an order webhook; null for a deposit, refund or payout webhook. */
  orderId: string | null;
  /** The deposit of a deposit webhook (DESIGN.md 15); null otherwise. */
  depositId: string | null;
  /** The refund or payout of a refund/payout webhook (DESIGN.md 14); null otherwise. */
  payoutId: string | null;
  merchantId: string;
  event: string;
  idempotencyKey: string;
  payload: string;
  /** Attempts already recorded before this one. */
  attempts: number;
  maxAttempts: number;
  /** The one-shot override of a retry run, else the order's (or the deposit address's) callback_url. */
  url: string;
  /** The merchant's webhook_secret as it is now: a rotated secret signs the next attempt. */
  secret: string;
  /** This claim's lease token; recording succeeds only while it still holds the lease. */
  leaseOwner: string;
  leaseExpiresAt: Date;
}

export interface ClaimOptions {
  /** Unique per claim: `<worker id>/<claim id>`. */
  leaseOwner: string;
  leaseMs: number;
  limit: number;
}

interface ClaimRow extends Record<string, unknown> {
  id: string;
  order_id: string | null;
  deposit_id: string | null;
  payout_id: string | null;
  merchant_id: string;
  event: string;
  idempotency_key: string;
  payload: string;
  attempts: number;
  max_attempts: number;
  url: string;
  secret: string;
  lease_expires_at: Date | string;
}

export async function claimDueWebhooks(ctx: Context, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  const now = ctx.clock.now();
  const leaseExpiresAt = new Date(now.getTime() + options.leaseMs);
  const result = await ctx.db.execute(sql`
    WITH due AS (
      SELECT id FROM webhook_deliveries
      WHERE status = 'pending'
        AND next_attempt_at <= ${now.toISOString()}::timestamptz
        AND (lease_expires_at IS NULL OR lease_expires_at <= ${now.toISOString()}::timestamptz)
      -- next_attempt_at alone: the order of webhook_deliveries_due_idx, so no sort of the backlog
      ORDER BY next_attempt_at
      LIMIT ${options.limit}
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE webhook_deliveries AS d
      SET lease_owner = ${options.leaseOwner},
          lease_expires_at = ${leaseExpiresAt.toISOString()}::timestamptz,
          updated_at = ${now.toISOString()}::timestamptz
      FROM due
      WHERE d.id = due.id
      RETURNING d.id, d.order_id, d.deposit_id, d.payout_id, d.merchant_id, d.event, d.idempotency_key,
                d.payload, d.attempts, d.max_attempts, d.callback_url_override, d.callback_url,
                d.lease_expires_at
    )
    SELECT c.id, c.order_id, c.deposit_id, c.payout_id, c.merchant_id, c.event, c.idempotency_key, c.payload,
           c.attempts, c.max_attempts,
           COALESCE(c.callback_url_override, o.callback_url, da.callback_url, c.callback_url) AS url,
           m.webhook_secret AS secret, c.lease_expires_at
    FROM claimed c
    LEFT JOIN orders o ON o.id = c.order_id
    LEFT JOIN deposits dep ON dep.id = c.deposit_id
    LEFT JOIN deposit_addresses da ON da.id = dep.deposit_address_id
    JOIN merchants m ON m.id = c.merchant_id
  `);
  // Both drivers (node-postgres and PGlite) return { rows }.
  const { rows } = result as unknown as { rows: ClaimRow[] };
  return rows.map((row) => ({
    id: row.id,
    orderId: row.order_id,
    depositId: row.deposit_id,
    payoutId: row.payout_id,
    merchantId: row.merchant_id,
    event: row.event,
    idempotencyKey: row.idempotency_key,
    payload: row.payload,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    url: row.url,
    secret: row.secret,
    leaseOwner: options.leaseOwner,
    leaseExpiresAt: new Date(row.lease_expires_at),
  }));
}
