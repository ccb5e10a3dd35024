/**
 * Every change of a refund's or payout's state goes through transitionPayout(): it checks the
 * transition table (a payout `sending` may also record an event that keeps it `sending`: signed
 * again), updates the row only if it still has the expected status (compare-and-set),
 * appends the payout event and writes the ledger postings the change implies, all in the caller's
 * transaction:
 *   rejected / cancelled / failed -> payout_released (+available, -reserved)
 *   completed                     -> payout_settled  (-reserved, +paid_out)
 * and, when the payout was created with a callback_url, the refund.* / payout.* webhook.
 */
import { and, eq } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { payoutEvents, payouts } from "../db/schema.js";
import { AppError } from "../errors.js";
import { newId } from "../ids.js";
import { postLedger } from "../ledger/post-ledger.js";
import { enqueuePayoutWebhook } from "./payout-webhooks.js";
import {
  PAYOUT_TRANSITIONS,
  RELEASING_STATUSES,
  type PayoutActor,
  type PayoutRow,
  type PayoutStatus,
} from "./payout-types.js";

export interface PayoutTransition {
  payout: PayoutRow;
  to: PayoutStatus;
  event: string;
  actor?: PayoutActor;
  payload?: Record<string, unknown>;
  patch?: Partial<typeof payouts.$inferInsert>;
}

export async function transitionPayout(
  ctx: Context,
  tx: Executor,
  input: PayoutTransition,
): Promise<PayoutRow> {
  const from = input.payout.status;
  // A payout signed again stays `sending`: its event is recorded like any transition's.
  const stays = from === "sending" && input.to === "sending";
  if (!stays && !PAYOUT_TRANSITIONS[from].includes(input.to)) {
    throw new AppError("INVALID_STATE", `a ${input.payout.kind} in status ${from} cannot become ${input.to}`);
  }
  const now = ctx.clock.now();
  const [row] = await tx
    .update(payouts)
    .set({ ...input.patch, status: input.to, updatedAt: now })
    .where(and(eq(payouts.id, input.payout.id), eq(payouts.status, from)))
    .returning();
  if (!row) {
    throw new AppError("INVALID_STATE", `the ${input.payout.kind} changed meanwhile; reload it`);
  }
  const eventId = newId(now.getTime());
  await tx.insert(payoutEvents).values({
    id: eventId,
    payoutId: row.id,
    eventType: input.event,
    fromStatus: from,
    toStatus: input.to,
    actor: input.actor ?? null,
    payload: input.payload ?? {},
    createdAt: now,
  });
  if (RELEASING_STATUSES.includes(input.to)) {
    await postLedger(tx, {
      kind: "payout_released",
      merchantId: row.merchantId,
      refType: "payout",
      refId: row.id,
      at: now,
      postings: [
        { account: "reserved", amount: -row.amount },
        { account: "available", amount: row.amount },
      ],
    });
  }
  if (input.to === "completed") {
    await postLedger(tx, {
      kind: "payout_settled",
      merchantId: row.merchantId,
      refType: "payout",
      refId: row.id,
      at: now,
      postings: [
        { account: "reserved", amount: -row.amount },
        { account: "paid_out", amount: row.amount },
      ],
    });
  }
  if (input.to === "completed" || input.to === "failed") {
    await enqueuePayoutWebhook(ctx, tx, { payout: row, eventId, eventCreatedAt: now });
  }
  return row;
}

/** The reservation a new refund or payout makes (INSUFFICIENT_BALANCE when available is short). */
export async function reservePayout(tx: Executor, row: PayoutRow, at: Date): Promise<void> {
  await postLedger(tx, {
    kind: "payout_reserved",
    merchantId: row.merchantId,
    refType: "payout",
    refId: row.id,
    at,
    postings: [
      { account: "available", amount: -row.amount },
      { account: "reserved", amount: row.amount },
    ],
  });
}
