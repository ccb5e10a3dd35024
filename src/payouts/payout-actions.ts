/**
 * What an operator may do with a refund or payout now, and why not the rest: decided from its status,
 * its latest webhook delivery and the operator's role, for the console's buttons. The actions
 * themselves check again (decide-payout.ts, payout-webhooks.ts, refund-claim-link.ts); this only
 * explains in advance.
 */
import { roleAllows, type Permission } from "../admin/permissions.js";
import type { OperatorRole } from "../admin/operator-types.js";
import type { Context } from "../context.js";
import { DECISION_FROM, fourEyesRefuses, type PayoutDecision } from "./decide-payout.js";
import type { PayoutActor, PayoutRow } from "./payout-types.js";

export const PAYOUT_ACTIONS = ["approve", "reject", "cancel", "retry_webhook", "reissue_claim_link"] as const;
export type PayoutAction = (typeof PAYOUT_ACTIONS)[number];

export interface ActionState {
  action: PayoutAction;
  allowed: boolean;
  /** why not, in words for the operator; null when allowed */
  reason: string | null;
}

/** The latest live delivery of the payout's webhook, as the detail reads it. */
export interface PayoutWebhookState {
  status: "pending" | "delivered" | "failed";
  attempts: number;
}

const PERMISSION: Record<PayoutAction, Permission> = {
  approve: "payouts.approve",
  reject: "payouts.approve",
  cancel: "payouts.cancel",
  retry_webhook: "payouts.retry_webhook",
  reissue_claim_link: "refunds.create",
};

const STATUS_WORDS: Record<PayoutRow["status"], string> = {
  awaiting_address: "waits for the payer's address",
  pending_approval: "waits for approval",
  approved: "is approved and queued to be sent",
  sending: "is being sent",
  completed: "was sent",
  failed: "failed",
  rejected: "was rejected",
  cancelled: "was cancelled",
};

function decisionReason(ctx: Context, row: PayoutRow, decision: PayoutDecision, actor: PayoutActor) {
  if (!DECISION_FROM[decision].includes(row.status)) {
    if (decision === "approve" && row.status === "awaiting_address")
      return "It waits for the payer's address: it can be approved once the payer gives one.";
    return `Not possible: it ${STATUS_WORDS[row.status]}.`;
  }
  if (decision === "approve" && fourEyesRefuses(ctx, row, actor))
    return "You created it: another operator must approve it.";
  return null;
}

function webhookReason(row: PayoutRow, webhook: PayoutWebhookState | null): string | null {
  if (webhook === null) {
    return row.callbackUrl === null
      ? "No webhook: it was created without a callback URL."
      : "No webhook yet: it is sent once the payout is finished.";
  }
  if (webhook.status === "delivered") return "The merchant received the latest webhook.";
  if (webhook.status === "pending" && webhook.attempts === 0) return "The webhook is about to be sent.";
  return null;
}

function claimLinkReason(ctx: Context, row: PayoutRow): string | null {
  if (row.kind !== "refund") return "Only a refund has a claim link.";
  if (row.status !== "awaiting_address") {
    return row.claimTokenHash === null
      ? "This refund was created with an address: it has no claim link."
      : "The payer already gave an address.";
  }
  return null;
}

export function payoutActions(
  ctx: Context,
  row: PayoutRow,
  webhook: PayoutWebhookState | null,
  operator: { actor: PayoutActor; role: OperatorRole },
): ActionState[] {
  return PAYOUT_ACTIONS.map((action) => {
    const stateReason =
      action === "retry_webhook"
        ? webhookReason(row, webhook)
        : action === "reissue_claim_link"
          ? claimLinkReason(ctx, row)
          : decisionReason(ctx, row, action, operator.actor);
    const reason =
      stateReason ??
      (roleAllows(operator.role, PERMISSION[action]) ? null : "Your role does not allow this.");
    return { action, allowed: reason === null, reason };
  });
}
