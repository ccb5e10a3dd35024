/**
 * Every change of a refund's or payout's state goes through transitionPayout(): it checks the
 * transition table (a payout `sending` may also record an event that keeps it `sending`: signed
 * again), updates the row only if it still has the expected status (compare-and-set),
 * appends the payout event and writes the ledger postings the change implies, all in the caller's
 * transaction:
 *   rejected / cancelled / failed -> payout_released (+available, -reserved)
 *   completed                     -> payout_settled  (-reserved, +paid_out)
 * each in the payout's currency (payout-currency.ts): the balance it reserved from.
 * and, when the payout was created with a callback_url, the refund.* / payout.* webhook.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
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
      currency: row.currency,
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
      currency: row.currency,
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

/**
 * The reservation a new refund or payout makes in its currency (INSUFFICIENT_BALANCE when the
 * available balance in that currency is short; another currency's money never counts).
 */
export async function reservePayout(tx: Executor, row: PayoutRow, at: Date): Promise<void> {
  await postLedger(tx, {
    kind: "payout_reserved",
    merchantId: row.merchantId,
    refType: "payout",
    refId: row.id,
    currency: row.currency,
    at,
    postings: [
      { account: "available", amount: -row.amount },
      { account: "reserved", amount: row.amount },
    ],
  });
}

/** A payout of a send round moving to `sending` with the transaction just stored for it. */
export interface SendingTransition {
  payout: PayoutRow;
  txHash: string;
  attempt: number;
}

/**
 * transitionPayout for the one change a send round makes in bulk: approved (first signature) or
 * sending (signed again) -> sending, with its `<kind>_sending` or `<kind>_resigned` event. The same
 * table check and compare-and-set, in one UPDATE and one INSERT for the whole batch; this
 * transition posts no ledger entry and sends no webhook.
 */
export async function transitionToSending(
  ctx: Context,
  tx: Executor,
  batch: readonly SendingTransition[],
): Promise<void> {
  if (batch.length === 0) return;
  for (const { payout } of batch) {
    if (payout.status !== "sending" && !PAYOUT_TRANSITIONS[payout.status].includes("sending")) {
      throw new AppError(
        "INVALID_STATE",
        `a ${payout.kind} in status ${payout.status} cannot become sending`,
      );
    }
  }
  const now = ctx.clock.now();
  const at = now.toISOString();
  const rows = sql.join(
    batch.map(
      (b) => sql`(${b.payout.id}::uuid, ${b.payout.status}::text, ${b.attempt}::int, ${b.txHash}::text)`,
    ),
    sql`, `,
  );
  const updated = await queryRows<{ id: string }>(
    tx,
    sql`UPDATE payouts p SET status = 'sending', updated_at = ${at}::timestamptz, attempts = v.attempt,
          tx_hash = v.tx_hash, last_error = NULL, wait_reason = NULL,
          sent_at = CASE WHEN p.status = 'approved' THEN ${at}::timestamptz ELSE p.sent_at END
        FROM (VALUES ${rows}) AS v(id, from_status, attempt, tx_hash)
        WHERE p.id = v.id AND p.status::text = v.from_status
        RETURNING p.id::text AS id`,
  );
  if (updated.length !== batch.length) {
    throw new AppError("INVALID_STATE", "a payout of the round changed meanwhile; reload it");
  }
  await tx.insert(payoutEvents).values(
    batch.map(({ payout, txHash, attempt }) => ({
      id: newId(now.getTime()),
      payoutId: payout.id,
      eventType: `${payout.kind}_${payout.status === "approved" ? "sending" : "resigned"}`,
      fromStatus: payout.status,
      toStatus: "sending",
      actor: null,
      payload: { tx_hash: txHash, attempt },
      createdAt: now,
    })),
  );
}
