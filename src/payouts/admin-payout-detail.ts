/**
 * GET /api/v1/admin/payouts/:id: the refund or payout, its events and transactions, the state of its
 * latest webhook delivery, when its claim link expires, and what the operator reading it may do
 * (payout-actions.ts).
 */
import { and, desc, eq, ne } from "drizzle-orm";
import type { OperatorRole } from "../admin/operator-types.js";
import type { Context } from "../context.js";
import { webhookDeliveries } from "../db/schema.js";
import { payoutActions, type ActionState } from "./payout-actions.js";
import type { PayoutActor, PayoutRow } from "./payout-types.js";
import { getPayoutDetail, type getPayoutHistory } from "./read-payouts.js";

export interface PayoutWebhookView {
  status: "pending" | "delivered" | "failed";
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  last_status_code: number | null;
  /** only while a retry is scheduled */
  next_attempt_at: string | null;
  delivered_at: string | null;
}

export interface AdminPayoutDetail {
  payout: PayoutRow;
  history: Awaited<ReturnType<typeof getPayoutHistory>>;
  webhook: PayoutWebhookView | null;
  claimExpiresAt: string | null;
  actions: ActionState[];
}

export async function getAdminPayoutDetail(
  ctx: Context,
  id: string,
  operator: { actor: PayoutActor; role: OperatorRole },
): Promise<AdminPayoutDetail> {
  const { payout, ...history } = await getPayoutDetail(ctx, id);
  const [delivery] = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.payoutId, payout.id), ne(webhookDeliveries.status, "superseded")))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(1);
  const webhook: PayoutWebhookView | null = delivery
    ? {
        status: delivery.status === "superseded" ? "pending" : delivery.status,
        attempts: delivery.attempts,
        max_attempts: delivery.maxAttempts,
        last_error: delivery.lastError,
        last_status_code: delivery.lastStatusCode,
        next_attempt_at: delivery.status === "pending" ? delivery.nextAttemptAt.toISOString() : null,
        delivered_at: delivery.deliveredAt?.toISOString() ?? null,
      }
    : null;
  return {
    payout,
    history,
    webhook,
    claimExpiresAt:
      payout.status === "awaiting_address" ? (payout.claimExpiresAt?.toISOString() ?? null) : null,
    actions: payoutActions(ctx, payout, webhook, operator),
  };
}
