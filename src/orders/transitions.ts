/**
 * The one table of order status changes (DESIGN.md section 3). Every status change in the service
 * goes through transitionOrder(), which checks this table, updates the row only if it is still in
 * the expected status, and appends the order event in the same transaction.
 */
import { and, eq, getTableColumns, or, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { pgArray } from "../db/pg-array.js";
import { type OrderStatus, orderEvents, orders } from "../db/schema.js";
import { AppError, assertNever } from "../errors.js";
import { newId } from "../ids.js";

export type OrderRow = typeof orders.$inferSelect;

export const OUTCOME_STATUSES = ["confirmed", "underpaid", "overpaid"] as const;
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];
/** Statuses in which the order already has an outcome (retry-webhook is allowed). */
export const STATUSES_WITH_OUTCOME: readonly OrderStatus[] = [
  ...OUTCOME_STATUSES,
  "completed",
  "callback_failed",
];

export const ORDER_EVENT_TYPES = [
  "order_created",
  "payment_detected",
  "late_payment",
  "order_expired",
  "payment_confirmed",
  "payment_underpaid",
  "payment_overpaid",
  "additional_payment",
  "payment_reverted",
  "webhook_delivered",
  "order_completed",
  "webhook_failed",
  "webhook_retry_requested",
  "sweep_completed",
  "sweep_failed",
  "sweep_retry_requested",
  // Resolutions (DESIGN.md 13): each carries {actor, reason}.
  "order_cancelled",
  "manually_resolved",
  "transfer_attached",
] as const;
export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];

interface Transition {
  from: readonly OrderStatus[];
  to: readonly OrderStatus[];
  /** The event recorded with the change. */
  event: OrderEventType;
}

const TRANSITIONS: readonly Transition[] = [
  { from: ["pending"], to: ["detected"], event: "payment_detected" },
  { from: ["expired", "cancelled"], to: ["detected"], event: "late_payment" },
  { from: ["pending"], to: ["expired"], event: "order_expired" },
  { from: ["pending"], to: ["cancelled"], event: "order_cancelled" },
  { from: ["detected"], to: ["confirmed"], event: "payment_confirmed" },
  { from: ["detected"], to: ["underpaid"], event: "payment_underpaid" },
  { from: ["detected"], to: ["overpaid"], event: "payment_overpaid" },
  { from: ["detected"], to: ["pending", "expired"], event: "payment_reverted" },
  // A further transfer confirming on an order that already has an outcome: a new outcome.
  { from: STATUSES_WITH_OUTCOME, to: OUTCOME_STATUSES, event: "additional_payment" },
  // Accept: an underpaid outcome becomes confirmed at the amount received (a new outcome webhook).
  { from: STATUSES_WITH_OUTCOME, to: ["confirmed"], event: "manually_resolved" },
  { from: [...OUTCOME_STATUSES, "callback_failed"], to: ["completed"], event: "order_completed" },
  { from: OUTCOME_STATUSES, to: ["callback_failed"], event: "webhook_failed" },
];

export function outcomeFor(amountReceived: bigint, amountExpected: bigint): OutcomeStatus {
  if (amountReceived === amountExpected) return "confirmed";
  return amountReceived < amountExpected ? "underpaid" : "overpaid";
}

/** The event recorded when an order reaches an outcome for the first time. */
export function outcomeEvent(status: OutcomeStatus): OrderEventType {
  switch (status) {
    case "confirmed":
      return "payment_confirmed";
    case "underpaid":
      return "payment_underpaid";
    case "overpaid":
      return "payment_overpaid";
    default:
      return assertNever(status);
  }
}

/** Statuses counted by stablegate_order_outcomes_total{status}. */
const COUNTED_OUTCOMES: ReadonlySet<OrderStatus> = new Set<OrderStatus>([
  ...OUTCOME_STATUSES,
  "expired",
  "completed",
  "callback_failed",
]);

// Counted when the guarded UPDATE succeeded: a caller's transaction that rolls back afterwards
// (rare: the next statement failed) still counts, which a rate over minutes does not notice.
function countOutcome(ctx: Context, to: OrderStatus, n: number): void {
  if (COUNTED_OUTCOMES.has(to)) ctx.metrics.orderOutcomes.inc({ status: to }, n);
}

export function isAllowed(from: OrderStatus, to: OrderStatus, event: OrderEventType): boolean {
  return TRANSITIONS.some((t) => t.event === event && t.from.includes(from) && t.to.includes(to));
}

export interface TransitionInput {
  order: OrderRow;
  to: OrderStatus;
  event: OrderEventType;
  payload?: Record<string, unknown>;
  /** Other columns that change together with the status. */
  patch?: Partial<Omit<typeof orders.$inferInsert, "id" | "status" | "merchantId" | "createdAt">>;
}

export interface TransitionResult {
  order: OrderRow;
  eventId: string;
  eventCreatedAt: Date;
}

/**
 * Moves the order from its current status to `to`. Throws INVALID_STATE when the table forbids it
 * or when another worker changed the order first (the caller's transaction then rolls back).
 */
export async function transitionOrder(
  ctx: Context,
  tx: Executor,
  input: TransitionInput,
): Promise<TransitionResult> {
  const { order, to, event } = input;
  if (!isAllowed(order.status, to, event)) {
    throw new AppError("INVALID_STATE", `order cannot move from ${order.status} to ${to} (${event})`);
  }
  const now = ctx.clock.now();
  const [updated] = await tx
    .update(orders)
    .set({ ...input.patch, status: to, updatedAt: now })
    .where(and(eq(orders.id, order.id), eq(orders.status, order.status)))
    .returning();
  if (!updated) {
    throw new AppError("INVALID_STATE", `order ${order.id} changed concurrently`);
  }
  countOutcome(ctx, to, 1);
  const eventId = await appendOrderEvent(ctx, tx, order.id, event, {
    from: order.status,
    to,
    ...input.payload,
  });
  return { order: updated, eventId, eventCreatedAt: now };
}

export interface BatchTransitionInput {
  /** Orders as read (and locked) by the caller; each moves from its own current status. */
  orders: readonly OrderRow[];
  to: OrderStatus;
  event: OrderEventType;
  /** Per-order event payload (merged after {from, to}, as in transitionOrder). */
  payload?: (order: OrderRow) => Record<string, unknown>;
  /** Columns that change together with the status, the same for every order. */
  patch?: TransitionInput["patch"];
}

/**
 * transitionOrder for many orders at once with one UPDATE and one INSERT (the webhook sender
 * settles a batch of deliveries this way): the same table check per order, the same guard on the
 * expected status. Throws INVALID_STATE if any order is refused or changed concurrently, so the
 * caller's transaction rolls back as a whole. Results follow the input order.
 */
export async function transitionOrders(
  ctx: Context,
  tx: Executor,
  input: BatchTransitionInput,
): Promise<TransitionResult[]> {
  const { to, event } = input;
  if (input.orders.length === 0) return [];
  for (const order of input.orders) {
    if (!isAllowed(order.status, to, event)) {
      throw new AppError("INVALID_STATE", `order cannot move from ${order.status} to ${to} (${event})`);
    }
  }
  const now = ctx.clock.now();
  const updated = await tx
    .update(orders)
    .set({ ...input.patch, status: to, updatedAt: now })
    .where(or(...input.orders.map((order) => and(eq(orders.id, order.id), eq(orders.status, order.status)))))
    .returning();
  if (updated.length !== new Set(input.orders.map((order) => order.id)).size) {
    throw new AppError("INVALID_STATE", "an order changed concurrently");
  }
  countOutcome(ctx, to, updated.length);
  const byId = new Map(updated.map((order) => [order.id, order]));
  const events = input.orders.map((order) => ({
    id: newId(),
    orderId: order.id,
    eventType: event,
    payload: { from: order.status, to, ...input.payload?.(order) },
    createdAt: now,
  }));
  await tx.insert(orderEvents).values(events);
  return input.orders.map((order, i) => ({
    order: byId.get(order.id) as OrderRow,
    eventId: (events[i] as { id: string }).id,
    eventCreatedAt: now,
  }));
}

export interface OutcomeTransition {
  /** The order as read (and locked) by the caller. */
  order: OrderRow;
  to: OutcomeStatus;
  event: OrderEventType;
  payload: Record<string, unknown>;
  amountReceived: bigint;
  txHash: string | null;
}

/**
 * transitionOrder for many outcomes at once (the confirmer settling a block's payments): one
 * UPDATE, in which each order takes its own status, amount_received and tx_hash (and the common
 * confirmed_at), guarded by its own expected status, and one INSERT of their events. The same
 * table check per order as transitionOrder; throws INVALID_STATE if any order is refused or
 * changed concurrently, so the caller's transaction rolls back as a whole. Results follow the
 * input order; each order at most once.
 */
export async function transitionOutcomes(
  ctx: Context,
  tx: Executor,
  items: readonly OutcomeTransition[],
  confirmedAt: Date,
): Promise<TransitionResult[]> {
  if (items.length === 0) return [];
  for (const { order, to, event } of items) {
    if (!isAllowed(order.status, to, event)) {
      throw new AppError("INVALID_STATE", `order cannot move from ${order.status} to ${to} (${event})`);
    }
  }
  if (new Set(items.map((i) => i.order.id)).size !== items.length) {
    throw new Error("transitionOutcomes: an order appears twice");
  }
  const now = ctx.clock.now();
  const updated = await tx
    .update(orders)
    .set({
      status: sql`v.to_status`,
      amountReceived: sql`v.received`,
      txHash: sql`v.tx_hash`,
      confirmedAt,
      updatedAt: now,
    })
    .from(
      sql`unnest(${pgArray(items.map((i) => i.order.id))}::uuid[],
                 ${pgArray(items.map((i) => i.order.status))}::text[],
                 ${pgArray(items.map((i) => i.to))}::text[],
                 ${pgArray(items.map((i) => i.amountReceived.toString()))}::numeric[],
                 ${pgArray(items.map((i) => i.txHash))}::text[])
          AS v (id, from_status, to_status, received, tx_hash)`,
    )
    .where(and(eq(orders.id, sql`v.id`), eq(orders.status, sql`v.from_status`)))
    .returning(getTableColumns(orders));
  if (updated.length !== items.length) {
    throw new AppError("INVALID_STATE", "an order changed concurrently");
  }
  const counts = new Map<OrderStatus, number>();
  for (const { to } of items) counts.set(to, (counts.get(to) ?? 0) + 1);
  for (const [to, n] of counts) countOutcome(ctx, to, n);
  const byId = new Map(updated.map((order) => [order.id, order]));
  const events = items.map(({ order, to, event, payload }) => ({
    id: newId(),
    orderId: order.id,
    eventType: event,
    payload: { from: order.status, to, ...payload },
    createdAt: now,
  }));
  await tx.insert(orderEvents).values(events);
  return items.map(({ order }, i) => ({
    order: byId.get(order.id) as OrderRow,
    eventId: (events[i] as { id: string }).id,
    eventCreatedAt: now,
  }));
}

export interface DetectionTransition {
  /** The order as read (and locked) by the caller: pending, expired or cancelled. */
  order: OrderRow;
  event: "payment_detected" | "late_payment";
  payload: Record<string, unknown>;
  /** The first payment's fields (the order's own when it has them already). */
  txHash: string;
  fromAddress: string;
  detectedAt: Date;
}

/**
 * transitionOrder to `detected` for many orders at once (the scanner applying a batch of blocks):
 * one UPDATE, each order with its own first payment's tx_hash, from_address and detected_at,
 * guarded by its own expected status, and one INSERT of their events. Throws INVALID_STATE as
 * transitionOutcomes does. Results follow the input order; each order at most once.
 */
export async function transitionDetections(
  ctx: Context,
  tx: Executor,
  items: readonly DetectionTransition[],
): Promise<TransitionResult[]> {
  if (items.length === 0) return [];
  for (const { order, event } of items) {
    if (!isAllowed(order.status, "detected", event)) {
      throw new AppError("INVALID_STATE", `order cannot move from ${order.status} to detected (${event})`);
    }
  }
  if (new Set(items.map((i) => i.order.id)).size !== items.length) {
    throw new Error("transitionDetections: an order appears twice");
  }
  const now = ctx.clock.now();
  const updated = await tx
    .update(orders)
    .set({
      status: "detected",
      txHash: sql`v.tx_hash`,
      fromAddress: sql`v.from_address`,
      detectedAt: sql`v.detected_at`,
      updatedAt: now,
    })
    .from(
      sql`unnest(${pgArray(items.map((i) => i.order.id))}::uuid[],
                 ${pgArray(items.map((i) => i.order.status))}::text[],
                 ${pgArray(items.map((i) => i.txHash))}::text[],
                 ${pgArray(items.map((i) => i.fromAddress))}::text[],
                 ${pgArray(items.map((i) => i.detectedAt.toISOString()))}::timestamptz[])
          AS v (id, from_status, tx_hash, from_address, detected_at)`,
    )
    .where(and(eq(orders.id, sql`v.id`), eq(orders.status, sql`v.from_status`)))
    .returning(getTableColumns(orders));
  if (updated.length !== items.length) {
    throw new AppError("INVALID_STATE", "an order changed concurrently");
  }
  const byId = new Map(updated.map((order) => [order.id, order]));
  const events = items.map(({ order, event, payload }) => ({
    id: newId(),
    orderId: order.id,
    eventType: event,
    payload: { from: order.status, to: "detected", ...payload },
    createdAt: now,
  }));
  await tx.insert(orderEvents).values(events);
  return items.map(({ order }, i) => ({
    order: byId.get(order.id) as OrderRow,
    eventId: (events[i] as { id: string }).id,
    eventCreatedAt: now,
  }));
}

/** Records an event that does not change the status (order_created, webhook_delivered, ...). */
export async function appendOrderEvent(
  ctx: Context,
  tx: Executor,
  orderId: string,
  eventType: OrderEventType,
  payload: Record<string, unknown> = {},
  at: Date = ctx.clock.now(),
): Promise<string> {
  const id = newId();
  await tx.insert(orderEvents).values({ id, orderId, eventType, payload, createdAt: at });
  return id;
}
