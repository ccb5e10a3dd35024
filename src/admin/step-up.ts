/**
 * Step-up (DESIGN.md 12): approving a payout or refund, changing a role and rotating a merchant's key
 * ask the enrolled actor for a fresh TOTP code in the request (`totp_code`). The domain function of
 * such an action takes a StepUp and calls requireStepUp before anything else; the code's step is
 * consumed even if the action then fails.
 */
import type { Context } from "../context.js";
import { AppError } from "../errors.js";
import type { AdminOperator } from "./operator-types.js";
import { consumeTotpCode } from "./totp.js";

/** The acting operator and the code its request carried (undefined when it sent none). */
export interface StepUp {
  operator: Pick<AdminOperator, "id" | "totpEnabled">;
  totpCode: string | undefined;
}

export async function requireStepUp(
  ctx: Context,
  operator: Pick<AdminOperator, "id" | "totpEnabled">,
  totpCode: string | undefined,
): Promise<void> {
  if (!operator.totpEnabled) {
    // Unreachable through the API (the session hook keeps an unenrolled operator to enrolment
    // while ADMIN_REQUIRE_2FA is on); kept so a caller elsewhere cannot skip the factor.
    if (ctx.config.adminRequire2fa) {
      throw new AppError("TOTP_REQUIRED", "enrol two-factor authentication first (ADMIN_REQUIRE_2FA)");
    }
    return;
  }
  if (totpCode === undefined || totpCode === "") {
    throw new AppError("TOTP_REQUIRED", "this action needs a fresh code from your authenticator (totp_code)");
  }
  if (!(await consumeTotpCode(ctx, ctx.db, operator.id, totpCode))) {
    throw new AppError("TOTP_INVALID", "the authenticator code is wrong or was already used");
  }
}
