/**
 * Returns addresses to the free pool. An address is released only when all of these hold, so a
 * payment can never arrive at an address that already belongs to someone else's order:
 *  - its order is final (completed, expired, callback_failed, cancelled; an outcome status is not final,
 *    the webhook is still owed),
 *  - no transfer to it is still unconfirmed,
 *  - its balance is zero (no credited transfer at all) or swept (settlement completed after the
 *    last transfer),
 *  - the quarantine (config.addressQuarantineSeconds) has passed since the order last changed.
 * Safe in two workers at once: rows are claimed with FOR UPDATE SKIP LOCKED.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";

export const RELEASE_BATCH_SIZE = 500;

export const FINAL_ORDER_STATUSES = ["completed", "expired", "callback_failed", "cancelled"] as const;

export interface ReleaseResult {
  released: number;
  more: boolean;
}

export async function releaseAddresses(
  ctx: Context,
  options: { batchSize?: number } = {},
): Promise<ReleaseResult> {
  const batchSize = options.batchSize ?? RELEASE_BATCH_SIZE;
  const now = ctx.clock.now();
  const quarantineStartedBefore = new Date(now.getTime() - ctx.config.addressQuarantineSeconds * 1000);
  const result = await queryRows<{ id: string }>(
    ctx.db,
    sql`
    WITH releasable AS (
      SELECT a.id, o.updated_at
      FROM addresses a
      JOIN orders o ON o.id = a.order_id
      WHERE a.status = 'allocated'
        AND o.status IN ('completed', 'expired', 'callback_failed', 'cancelled')
        -- the order's last change (transitionOrder stamps updated_at) started the quarantine
        AND o.updated_at <= ${quarantineStartedBefore.toISOString()}::timestamptz
        AND NOT EXISTS (SELECT 1 FROM transfers t WHERE t.order_id = o.id AND t.status <> 'confirmed')
        AND (
          NOT EXISTS (SELECT 1 FROM transfers t WHERE t.order_id = o.id)
          OR EXISTS (
            SELECT 1 FROM settlements s
            WHERE s.order_id = o.id AND s.status = 'completed'
              AND NOT EXISTS (
                SELECT 1 FROM transfers t
                WHERE t.order_id = o.id AND t.created_at > coalesce(s.swept_at, s.updated_at)
              )
          )
        )
      ORDER BY a.derivation_index
      LIMIT ${batchSize}
      FOR UPDATE OF a, o SKIP LOCKED
    )
    UPDATE addresses a
    SET status = 'free', order_id = NULL, last_order_id = a.order_id, released_at = ${now.toISOString()}::timestamptz,
        quarantine_until = releasable.updated_at + make_interval(secs => ${ctx.config.addressQuarantineSeconds})
    FROM releasable
    WHERE a.id = releasable.id
    RETURNING a.id::text AS id`,
  );
  const held = await releaseHeldAddresses(ctx, batchSize);
  const released = result.length + held;
  if (released > 0) ctx.log.info({ released, strayHeld: held }, "addresses released to the pool");
  return { released, more: result.length === batchSize || held === batchSize };
}

/**
 * Returns addresses that a stray transfer took out of the pool (allocated, no order): when no stray
 * to it is unconfirmed, every stray's balance is swept, and the quarantine has passed since the
 * last stray (its payer evidently reuses the address). A stray's balance is swept when the
 * address-level settlement completed after it was recorded, by a sweep (step swept) or by a round
 * that found the address empty. Dust is not swept: a round that found a balance below
 * SWEEP_MIN_USDT (step below_minimum, amount > 0) keeps the address out of the pool, so the next
 * order's sweep never carries a stray's money (README, stray transfers). A later stray that tops the
 * balance up, or an operator's retry-sweep after lowering SWEEP_MIN_USDT, sweeps it and frees it.
 */
async function releaseHeldAddresses(ctx: Context, batchSize: number): Promise<number> {
  const now = ctx.clock.now();
  const quarantineStartedBefore = new Date(now.getTime() - ctx.config.addressQuarantineSeconds * 1000);
  const rows = await queryRows<{ id: string }>(
    ctx.db,
    sql`
    WITH releasable AS (
      SELECT a.id
      FROM addresses a
      WHERE a.status = 'allocated' AND a.order_id IS NULL
        AND NOT EXISTS (
          SELECT 1 FROM stray_transfers st
          WHERE st.address_id = a.id
            AND (st.status <> 'confirmed' OR st.created_at > ${quarantineStartedBefore.toISOString()}::timestamptz)
        )
        AND NOT EXISTS (
          SELECT 1 FROM stray_transfers st
          WHERE st.address_id = a.id
            AND NOT EXISTS (
              SELECT 1 FROM settlements s
              WHERE s.address_id = a.id AND s.order_id IS NULL AND s.status = 'completed'
                AND NOT (s.step = 'below_minimum' AND coalesce(s.amount, 0) > 0)
                AND st.created_at <= CASE WHEN s.step = 'below_minimum' THEN s.updated_at
                                          ELSE coalesce(s.swept_at, s.updated_at) END
            )
        )
        AND NOT EXISTS (
          SELECT 1 FROM settlements s
          WHERE s.address_id = a.id AND s.order_id IS NULL AND s.status <> 'completed'
        )
      ORDER BY a.id
      LIMIT ${batchSize}
      FOR UPDATE OF a SKIP LOCKED
    )
    UPDATE addresses a
    SET status = 'free', released_at = ${now.toISOString()}::timestamptz
    FROM releasable
    WHERE a.id = releasable.id AND a.status = 'allocated' AND a.order_id IS NULL
    RETURNING a.id::text AS id`,
  );
  return rows.length;
}
