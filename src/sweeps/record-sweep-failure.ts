/**
 * What happens when a step throws: a lost lease is left alone, a node outage waits without using up
 * an attempt, anything else backs off, and after SWEEP_MAX_ATTEMPTS the settlement is failed with
 * `sweep_failed` {reason, attempt, step} for an operator's retry-sweep.
 */
import { sql } from "drizzle-orm";
import { appendOrderEvent } from "../orders/transitions.js";
import { TronNodeError } from "@stablegate/tron/node-errors";
import { isNodeCallError } from "../chains/node-call-error.js";
import { updateLeased } from "./settlement-store.js";
import { SWEEP_MAX_ATTEMPTS, sweepBackoffMs } from "./sweep-plan.js";
import { LeaseLost, type SettlementRow, type SweepDeps } from "./sweep-types.js";

/** How soon to try again when the node itself failed (does not count as an attempt). */
export const SWEEP_NODE_RETRY_MS = 10_000;

export async function recordSweepFailure(
  d: Pick<SweepDeps, "ctx" | "owner">,
  row: SettlementRow,
  step: string,
  error: unknown,
): Promise<"failed" | "pending"> {
  const { ctx } = d;
  if (error instanceof LeaseLost) {
    ctx.log.warn({ orderId: row.order_id, step }, error.message);
    return "pending";
  }
  const reason = error instanceof Error ? error.message : String(error);
  const now = ctx.clock.now();
  const later = (ms: number) => new Date(now.getTime() + ms).toISOString();
  if ((error instanceof TronNodeError || isNodeCallError(error)) && error.retryable) {
    // The node is down or limiting us: not the sweep's fault, so no attempt is used up.
    await updateLeased(
      d,
      ctx.db,
      row,
      sql`last_error = ${reason}, next_attempt_at = ${later(SWEEP_NODE_RETRY_MS)}::timestamptz,
        lease_owner = NULL, lease_expires_at = NULL`,
    );
    ctx.log.warn({ orderId: row.order_id, step, err: reason }, "sweep waits for the node");
    return "pending";
  }
  const attempt = row.attempts + 1;
  if (attempt >= SWEEP_MAX_ATTEMPTS) {
    await ctx.db.transaction(async (tx) => {
      await updateLeased(
        d,
        tx,
        row,
        sql`status = 'failed', attempts = ${attempt}, last_error = ${reason}, next_attempt_at = NULL,
          lease_owner = NULL, lease_expires_at = NULL`,
      );
      // An address-level settlement's failure is alerted from its row (evaluate-alerts.ts).
      if (row.order_id !== null) {
        await appendOrderEvent(ctx, tx, row.order_id, "sweep_failed", { reason, attempt, step });
      }
    });
    ctx.metrics.sweeps.inc({ result: "failed" });
    ctx.log.error({ orderId: row.order_id, step, attempt, err: reason }, "sweep failed");
    return "failed";
  }
  await updateLeased(
    d,
    ctx.db,
    row,
    sql`status = 'active', attempts = ${attempt}, last_error = ${reason},
      next_attempt_at = ${later(sweepBackoffMs(attempt))}::timestamptz, lease_owner = NULL, lease_expires_at = NULL`,
  );
  ctx.metrics.sweeps.inc({ result: "retry" });
  ctx.log.warn({ orderId: row.order_id, step, attempt, err: reason }, "sweep attempt failed");
  return "pending";
}
