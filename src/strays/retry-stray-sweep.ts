/**
 * POST /admin/stray-transfers/:id/retry-sweep: the address-level twin of an order's retry-sweep
 * (src/sweeps/retry-sweep.ts). The sweep of a stray's balance belongs to its address (one
 * settlement per address, DESIGN.md 4), so retrying it retries that settlement, for every stray on
 * the address at once. It re-queues:
 *  - a failed settlement, with a fresh attempt budget (the round is kept: its ledger rows and any
 *    stored transaction stay valid, exactly as for an order);
 *  - a settlement that completed `below_minimum` while the address still holds a stray it did not
 *    sweep (dust, kept out of the pool by release-addresses.ts): after SWEEP_MIN_USDT was lowered,
 *    the operator sweeps it now. This starts a new round.
 * Checks run in the documented order: existence (404), sweeping enabled (409 SWEEP_DISABLED), a
 * settlement in one of those states (409 INVALID_STATE). One transaction with the audit row.
 */
import { sql } from "drizzle-orm";
import { appendAudit } from "../audit/append-audit.js";
import { SYSTEM_ACTOR, type AuditOrigin } from "../audit/audit-types.js";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { readStrayViews, type StrayTransferView } from "./stray-view.js";

export async function retryStraySweep(
  ctx: Context,
  strayId: string,
  origin: AuditOrigin = { actor: SYSTEM_ACTOR },
): Promise<StrayTransferView> {
  const notFound = new AppError("NOT_FOUND", "stray transfer not found");
  if (!isUuid(strayId)) throw notFound;
  return ctx.db.transaction(async (tx) => {
    const [stray] = await queryRows<{ address_id: string; chain: string }>(
      tx,
      sql`SELECT address_id::text AS address_id, chain FROM stray_transfers WHERE id = ${strayId}::uuid`,
    );
    if (!stray) throw notFound;
    if (!ctx.config.sweepEnabled) {
      throw new AppError("SWEEP_DISABLED", "sweeping is not enabled on this deployment");
    }
    const now = ctx.clock.now().toISOString();
    const [requeued] = await queryRows<{ id: string; step: string | null; round: number; was: string }>(
      tx,
      sql`WITH target AS (
            SELECT s.id, s.status, s.step FROM settlements s
            WHERE s.address_id = ${stray.address_id}::bigint AND s.order_id IS NULL AND s.chain = ${stray.chain}
              AND (s.status = 'failed'
                OR (s.status = 'completed' AND s.step = 'below_minimum' AND coalesce(s.amount, 0) > 0 AND EXISTS (
                  SELECT 1 FROM stray_transfers st
                  WHERE st.address_id = s.address_id AND st.status = 'confirmed'
                    AND (s.swept_at IS NULL OR st.created_at > s.swept_at))))
            FOR UPDATE OF s
          )
          UPDATE settlements s
          SET status = 'waiting', attempts = 0, last_error = NULL, next_attempt_at = ${now}::timestamptz,
            lease_owner = NULL, lease_expires_at = NULL, updated_at = ${now}::timestamptz,
            -- a completed round is over: dust is swept by a new round, as enqueueAddressSweeps does
            step = CASE WHEN target.status = 'completed' THEN NULL ELSE s.step END,
            mode = CASE WHEN target.status = 'completed' THEN NULL ELSE s.mode END,
            round = CASE WHEN target.status = 'completed' THEN s.round + 1 ELSE s.round END,
            queued_at = CASE WHEN target.status = 'completed' THEN ${now}::timestamptz ELSE s.queued_at END
          FROM target
          WHERE s.id = target.id
          RETURNING s.id::text AS id, target.step, s.round, target.status AS was`,
    );
    if (!requeued) {
      throw new AppError(
        "INVALID_STATE",
        "only a failed sweep, or dust left below SWEEP_MIN_USDT, of the stray's address can be retried",
      );
    }
    await appendAudit(tx, {
      ...origin,
      action: "stray.retry_sweep",
      targetType: "stray_transfer",
      targetId: strayId,
      before: { settlement_status: requeued.was, step: requeued.step },
      after: { settlement_id: requeued.id, settlement_status: "waiting", round: requeued.round },
      at: ctx.clock.now(),
    });
    const [view] = await readStrayViews(ctx, tx, sql`WHERE st.id = ${strayId}::uuid`);
    return view as StrayTransferView;
  });
}
