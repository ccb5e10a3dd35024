/**
 * Stores the outcomes of HTTP attempts and moves each delivery (and, when it settles the current
 * outcome, its order) on. A batch is one transaction; under load the sender records whatever
 * attempts finished together, so a commit is shared by many deliveries.
 *   2xx                      -> delivery delivered, `webhook_delivered`, order -> completed
 *   failure, attempts < max  -> retry after min(2^n, 3600) s
 *   failure, attempts = max  -> delivery failed, order -> callback_failed with `webhook_failed`
 * Each update is fenced by the claim's lease token: an attempt whose lease was lost (expired and
 * taken over, or the delivery was superseded by a newer outcome or a retry run) is logged in
 * webhook_attempts but changes nothing else.
 */
import { asc, inArray, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { depositEvents, orderEvents, orders, payoutEvents } from "../db/schema.js";
import { AppError } from "../errors.js";
import { newId } from "../ids.js";
import { isAllowed, type OrderRow, OUTCOME_STATUSES, transitionOrders } from "../orders/transitions.js";
import type { ClaimedDelivery } from "./claim-due-webhooks.js";
import type { AttemptResult } from "./send-webhook.js";

export const MAX_BACKOFF_SECONDS = 3600;

/** Delay after failed attempt n (1-based): 2, 4, 8, ... seconds, capped at one hour. */
export function retryDelaySeconds(attempt: number): number {
  return Math.min(2 ** attempt, MAX_BACKOFF_SECONDS);
}

/** The human reason of a failed attempt, as stored in last_error and webhook_failed. */
export function failureReason(result: AttemptResult): string {
  if (result.error !== null) return result.error;
  const status = result.statusCode ?? 0;
  return status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
}

export type RecordOutcome = "delivered" | "retry_scheduled" | "failed" | "lease_lost";

export interface AttemptRecord {
  claim: ClaimedDelivery;
  result: AttemptResult;
}

/**
 * transitionOrders(..., to: "completed", event: "order_completed") in one statement: the guarded
 * UPDATE (each order still in the status it was locked in) and its events together, so the order
 * rollups are held for one round trip. The hot path of the sender: every 2xx completes an order.
 */
async function completeOrders(
  ctx: Context,
  tx: Executor,
  toComplete: LockedOrder[],
  now: Date,
): Promise<void> {
  if (toComplete.length === 0) return;
  for (const order of toComplete) {
    if (!isAllowed(order.status, "completed", "order_completed")) {
      throw new AppError(
        "INVALID_STATE",
        `order cannot move from ${order.status} to completed (order_completed)`,
      );
    }
  }
  const input = toComplete.map((order) => ({ id: order.id, status: order.status, event_id: newId() }));
  const moved = await queryRows<{ order_id: string }>(
    tx,
    sql`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb) AS i(id uuid, status text, event_id uuid)
    ), moved AS (
      UPDATE orders AS o
      SET status = 'completed', completed_at = ${now.toISOString()}::timestamptz,
          updated_at = ${now.toISOString()}::timestamptz
      FROM input
      WHERE o.id = input.id AND o.status = input.status
      RETURNING o.id
    )
    INSERT INTO order_events (id, order_id, event_type, payload, created_at)
    SELECT input.event_id, input.id, 'order_completed',
           jsonb_build_object('from', input.status, 'to', 'completed'), ${now.toISOString()}::timestamptz
    FROM input JOIN moved ON moved.id = input.id
    RETURNING order_id::text AS order_id`,
  );
  if (moved.length !== toComplete.length)
    throw new AppError("INVALID_STATE", "an order changed concurrently");
  ctx.metrics.orderOutcomes.inc({ status: "completed" }, moved.length);
}

/** What recording reads of an order it locks. */
type LockedOrder = Pick<OrderRow, "id" | "status">;

/** An order webhook: its history goes to the order's events (not a deposit's or a payout's). */
const isOrderDelivery = (claim: ClaimedDelivery): boolean =>
  claim.depositId === null && claim.orderId !== null;

const isOutcomeStatus = (status: string): boolean => (OUTCOME_STATUSES as readonly string[]).includes(status);

export async function recordWebhookAttempt(
  ctx: Context,
  claim: ClaimedDelivery,
  result: AttemptResult,
): Promise<RecordOutcome> {
  const [outcome] = await recordWebhookAttempts(ctx, [{ claim, result }]);
  return outcome as RecordOutcome;
}

/** Records a batch of attempts in one transaction; returns one outcome per record, in order. */
export async function recordWebhookAttempts(
  ctx: Context,
  records: AttemptRecord[],
): Promise<RecordOutcome[]> {
  if (records.length === 0) return [];
  const outcomes = await recordInTransaction(ctx, records);
  // Counted after the commit: stablegate_webhook_deliveries_total{result}.
  const counts = new Map<RecordOutcome, number>();
  for (const outcome of outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  for (const [result, count] of counts) ctx.metrics.webhookDeliveries.inc({ result }, count);
  return outcomes;
}

async function recordInTransaction(ctx: Context, records: AttemptRecord[]): Promise<RecordOutcome[]> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    // Orders are locked first, in id order, like the outcome path (an order, then its
    // deliveries): two batches or a batch and an outcome never deadlock, and the statuses read
    // here cannot change before this transaction ends.
    const orderIds = [
      ...new Set(records.flatMap((record) => (record.claim.orderId === null ? [] : [record.claim.orderId]))),
    ].sort();
    // Only what the outcomes depend on (id, status): a batch locks up to a few hundred orders, and
    // their full rows are read only for the rare order that a last failure moves on.
    const locked =
      orderIds.length === 0
        ? []
        : await queryRows<LockedOrder>(
            tx,
            // One array parameter (an index scan over its keys), not a parameter per order.
            sql`SELECT id::text AS id, status FROM orders
                WHERE id = ANY(${`{${orderIds.join(",")}}`}::uuid[])
                ORDER BY id FOR UPDATE`,
          );
    const orderById = new Map<string, LockedOrder>(locked.map((order) => [order.id, order]));
    const payoutEventRows: (typeof payoutEvents.$inferInsert)[] = [];

    const plans = records.map(({ claim, result }) => {
      const attempt = claim.attempts + 1;
      const exhausted = !result.success && attempt >= claim.maxAttempts;
      return {
        claim,
        result,
        attempt,
        reason: result.success ? null : failureReason(result),
        status: result.success ? "delivered" : exhausted ? "failed" : "pending",
        nextAttemptAt:
          result.success || exhausted ? now : new Date(now.getTime() + retryDelaySeconds(attempt) * 1000),
      };
    });

    // One statement logs every attempt, moves each delivery on (fenced by its lease token) and adds
    // the `webhook_delivered` event of each order delivery it moved to delivered.
    const input = plans.map((plan) => ({
      id: newId(),
      delivery_id: plan.claim.id,
      lease_owner: plan.claim.leaseOwner,
      attempt: plan.attempt,
      url: plan.result.url,
      started_at: plan.result.startedAt.toISOString(),
      duration_ms: plan.result.durationMs,
      status_code: plan.result.statusCode,
      error: plan.result.success ? null : plan.result.error,
      success: plan.result.success,
      status: plan.status,
      next_attempt_at: plan.nextAttemptAt.toISOString(),
      reason: plan.reason,
      // Set for a 2xx of an order webhook: its event's id and order (a deposit webhook's history
      // is the deposit's, a refund or payout webhook's the payout's).
      event_id: plan.result.success && isOrderDelivery(plan.claim) ? newId() : null,
      order_id: plan.claim.orderId,
      event: plan.claim.event,
      idempotency_key: plan.claim.idempotencyKey,
    }));
    const updatedRows = await queryRows<{ id: string }>(
      tx,
      sql`
      WITH v AS (
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb) AS v(id uuid, delivery_id uuid,
          lease_owner text, attempt int, url text, started_at timestamptz, duration_ms int, status_code int,
          error text, success boolean, status text, next_attempt_at timestamptz, reason text, event_id uuid,
          order_id uuid, event text, idempotency_key text)
      ), logged AS (
        INSERT INTO webhook_attempts (id, delivery_id, attempt, url, started_at, duration_ms, status_code, error, success)
        SELECT id, delivery_id, attempt, url, started_at, duration_ms, status_code, error, success FROM v
      ), updated AS (
        UPDATE webhook_deliveries AS d
        SET attempts = v.attempt,
            status = v.status,
            next_attempt_at = v.next_attempt_at,
            delivered_at = CASE WHEN v.status = 'delivered' THEN ${now.toISOString()}::timestamptz END,
            last_error = v.reason,
            last_status_code = v.status_code,
            lease_owner = NULL,
            lease_expires_at = NULL,
            updated_at = ${now.toISOString()}::timestamptz
        FROM v
        WHERE d.id = v.delivery_id AND d.status = 'pending' AND d.lease_owner = v.lease_owner
        RETURNING d.id
      ), delivered_events AS (
        INSERT INTO order_events (id, order_id, event_type, payload, created_at)
        SELECT v.event_id, v.order_id, 'webhook_delivered',
               jsonb_build_object('delivery_id', v.delivery_id, 'event', v.event,
                 'idempotency_key', v.idempotency_key, 'attempt', v.attempt, 'status_code', v.status_code),
               ${now.toISOString()}::timestamptz
        FROM v JOIN updated ON updated.id = v.delivery_id
        WHERE v.event_id IS NOT NULL
      )
      SELECT id::text AS id FROM updated`,
    );
    const updated = new Set(updatedRows.map((row) => row.id));

    // A pending delivery is always the order's current outcome: enqueueing a newer outcome and
    // requesting a retry run both supersede every older pending delivery of the order. So a 2xx
    // completes the order and the last failure fails it, when its status still allows it.
    const events: (typeof orderEvents.$inferInsert)[] = [];
    const toComplete = new Map<string, LockedOrder>();
    const toFail = new Map<string, { order: LockedOrder; payload: Record<string, unknown> }>();
    const outcomes: RecordOutcome[] = [];
    const depositEventRows: (typeof depositEvents.$inferInsert)[] = [];
    for (const plan of plans) {
      if (plan.claim.depositId !== null) {
        // A deposit webhook (DESIGN.md 15): the delivery row is the whole state; its history goes to
        // the deposit's events, and the 10th failure is an incident there.
        outcomes.push(depositOutcome(plan, updated, depositEventRows, now));
        continue;
      }
      if (plan.claim.payoutId !== null && plan.claim.orderId === null) {
        // A refund or payout webhook (DESIGN.md 14): the delivery records itself and the payout's
        // history notes it; the payout's status never depends on its webhook.
        if (!updated.has(plan.claim.id)) {
          outcomes.push("lease_lost");
          continue;
        }
        const outcome: RecordOutcome = plan.result.success
          ? "delivered"
          : plan.status === "pending"
            ? "retry_scheduled"
            : "failed";
        if (outcome !== "retry_scheduled") {
          payoutEventRows.push({
            id: newId(),
            payoutId: plan.claim.payoutId,
            eventType: outcome === "delivered" ? "webhook_delivered" : "webhook_failed",
            payload: {
              delivery_id: plan.claim.id,
              event: plan.claim.event,
              attempt: plan.attempt,
              status_code: plan.result.statusCode,
              ...(outcome === "failed" ? { reason: plan.reason ?? "failed" } : {}),
            },
            createdAt: now,
          });
        }
        outcomes.push(outcome);
        continue;
      }
      const order = plan.claim.orderId === null ? undefined : orderById.get(plan.claim.orderId);
      if (!updated.has(plan.claim.id) || !order) {
        outcomes.push("lease_lost");
        continue;
      }
      if (plan.result.success) {
        // Its webhook_delivered event went in with the delivery's update above.
        if (isOutcomeStatus(order.status) || order.status === "callback_failed")
          toComplete.set(order.id, order);
        outcomes.push("delivered");
        continue;
      }
      if (plan.status === "pending") {
        outcomes.push("retry_scheduled");
        continue;
      }
      const payload = {
        reason: plan.reason ?? "failed",
        attempt: plan.attempt,
        delivery_id: plan.claim.id,
        event: plan.claim.event,
      };
      if (isOutcomeStatus(order.status)) {
        toFail.set(order.id, { order, payload });
      } else if (order.status === "callback_failed") {
        // A retry run that failed again is a new incident; the status is already right.
        events.push({ id: newId(), orderId: order.id, eventType: "webhook_failed", payload, createdAt: now });
      }
      // Any other status (completed after an earlier success): the failure stays on the delivery.
      outcomes.push("failed");
    }
    // Events that do not change a status: one insert for the whole batch, before the status
    // changes. Those update the order rollups (migrations 0004, 0013), whose rows every transaction
    // completing orders of the same merchant needs: they come last, so the rollup rows stay locked
    // for one statement and the commit only.
    if (events.length > 0) await tx.insert(orderEvents).values(events);
    if (depositEventRows.length > 0) await tx.insert(depositEvents).values(depositEventRows);
    if (payoutEventRows.length > 0) await tx.insert(payoutEvents).values(payoutEventRows);
    const failingIds = [...toFail.keys()].filter((id) => !toComplete.has(id));
    // Locked above, so these full rows are the ones whose status the outcomes were decided on.
    const failing =
      failingIds.length === 0
        ? []
        : await tx.select().from(orders).where(inArray(orders.id, failingIds)).orderBy(asc(orders.id));
    await transitionOrders(ctx, tx, {
      orders: failing,
      to: "callback_failed",
      event: "webhook_failed",
      payload: (order) => toFail.get(order.id)?.payload ?? {},
    });
    await completeOrders(ctx, tx, [...toComplete.values()], now);
    return outcomes;
  });
}

interface DepositPlan {
  claim: ClaimedDelivery;
  result: AttemptResult;
  attempt: number;
  reason: string | null;
  status: string;
}

function depositOutcome(
  plan: DepositPlan,
  updated: ReadonlySet<string>,
  out: (typeof depositEvents.$inferInsert)[],
  now: Date,
): RecordOutcome {
  if (!updated.has(plan.claim.id) || plan.claim.depositId === null) return "lease_lost";
  const base = {
    delivery_id: plan.claim.id,
    event: plan.claim.event,
    idempotency_key: plan.claim.idempotencyKey,
    attempt: plan.attempt,
  };
  if (plan.result.success) {
    out.push({
      id: newId(),
      depositId: plan.claim.depositId,
      eventType: "webhook_delivered",
      payload: { ...base, status_code: plan.result.statusCode },
      createdAt: now,
    });
    return "delivered";
  }
  if (plan.status === "pending") return "retry_scheduled";
  out.push({
    id: newId(),
    depositId: plan.claim.depositId,
    eventType: "webhook_failed",
    payload: { ...base, reason: plan.reason ?? "failed" },
    createdAt: now,
  });
  return "failed";
}
