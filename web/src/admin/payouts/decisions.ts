/** The decisions an operator takes on a refund or payout, as the dashboard offers them. */
import type { ErrorCode, PayoutStatus } from "../../api-types.js";
import type { ApiError } from "../api.js";

export type Decision = "approve" | "reject" | "cancel";

/** Which decisions a payout in `status` still allows (the server's FROM table, decide-payout.ts). */
export const DECIDABLE: Record<Decision, readonly PayoutStatus[]> = {
  approve: ["pending_approval"],
  reject: ["awaiting_address", "pending_approval"],
  cancel: ["awaiting_address", "pending_approval", "approved"],
};

export const DECISION_PERMISSION: Record<Decision, string> = {
  approve: "payouts.approve",
  reject: "payouts.approve",
  cancel: "payouts.cancel",
};

const REFUSAL_TEXT: Partial<Record<ErrorCode, string>> = {
  TOTP_INVALID: "That code is wrong or was already used: wait for the next one.",
  PASSKEY_INVALID: "The passkey was not accepted: try again, or use a code from your app.",
  RATE_LIMITED: "Too many wrong second-factor codes: locked for 15 minutes, or until the owner unlocks you.",
  FOUR_EYES_REQUIRED: "You created this one: another operator must approve it (four-eyes rule).",
  ADMIN_FORBIDDEN: "Your role may not do this.",
  INVALID_STATE: "It changed meanwhile and no longer allows this; reload.",
  NOT_FOUND: "It no longer exists.",
};

/** The server's refusal codes of a decision, in the operator's words. */
export function decisionErrorText(code: ApiError["code"], message: string): string {
  const text = code === "ERROR" ? undefined : REFUSAL_TEXT[code];
  return `${text ?? message} (${code})`;
}

/** What each decision means, on its button: Reject and Cancel both stop a payout, for different reasons. */
export const DECISION_HINT: Record<Decision, string> = {
  approve: "Send it: the hot wallet pays it shortly after.",
  reject: "Refuse the request as the approver (it should not be paid); the merchant is told it was rejected.",
  cancel: "Withdraw it before it is sent (created by mistake or no longer needed); nothing is paid.",
};
