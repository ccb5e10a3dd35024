/**
 * An operator's decisions on a refund or payout (DESIGN.md 14):
 *   approve  pending_approval -> approved   (never by the operator who created it: PAYOUT_FOUR_EYES)
 *   reject   awaiting_address | pending_approval -> rejected   (the reservation is released)
 *   cancel   awaiting_address | pending_approval | approved -> cancelled (before sending)
 * Each is a compare-and-set transition with its event, ledger postings and audit row
 * (`refund.approve`, `payout.cancel` ...) in one transaction. An approval through the API carries
 * a step-up (a fresh TOTP code), asked for only after the refusals: a refused approval spends no code.
 */
import { eq } from "drizzle-orm";
import { requireStepUp, type StepUp } from "../admin/step-up.js";
import { appendAudit, type AuditOrigin } from "../audit/append-audit.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { payouts } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { formatAmount } from "../money.js";
import type { PayoutActor, PayoutRow, PayoutStatus } from "./payout-types.js";
import { transitionPayout } from "./transition-payout.js";

export type PayoutDecision = "approve" | "reject" | "cancel";

const FROM: Record<PayoutDecision, readonly PayoutStatus[]> = {
  approve: ["pending_approval"],
  reject: ["awaiting_address", "pending_approval"],
  cancel: ["awaiting_address", "pending_approval", "approved"],
};
const TO: Record<PayoutDecision, PayoutStatus> = {
  approve: "approved",
  reject: "rejected",
  cancel: "cancelled",
};

export interface DecideInput {
  id: string;
  decision: PayoutDecision;
  actor: PayoutActor;
  reason?: string | undefined;
  /** Who asked, from where: the audit row, written in the decision's transaction. */
  origin?: AuditOrigin;
  /**
   * The operator's fresh second factor (TOTP code or passkey), checked after the refusals:
   * approvals and rejections through the API. Money out needs one always (DESIGN.md 12).
   */
  stepUp?: StepUp;
}

/**
 * The checks of a decision without changing anything (404, 409 INVALID_STATE, 403
 * FOUR_EYES_REQUIRED): the route runs them before it asks for the TOTP step-up, so a refused
 * decision does not spend the operator's code. decidePayout runs them again under the row lock.
 */
export async function checkDecision(
  ctx: Context,
  input: Pick<DecideInput, "id" | "decision" | "actor">,
  db: Executor = ctx.db,
  lock = false,
): Promise<PayoutRow> {
  if (!isUuid(input.id)) throw new AppError("NOT_FOUND", "payout not found");
  const query = db.select().from(payouts).where(eq(payouts.id, input.id));
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw new AppError("NOT_FOUND", "payout not found");
  assertDecidable(ctx, row, input);
  return row;
}

export async function decidePayout(ctx: Context, input: DecideInput): Promise<PayoutRow> {
  if (input.stepUp) {
    // Refusals first (404, 409, four eyes), then the step-up.
    await checkDecision(ctx, input);
    await requireStepUp(ctx, input.stepUp, { always: true });
  }
  return ctx.db.transaction(async (tx) => {
    const row = await checkDecision(ctx, input, tx, true);
    const now = ctx.clock.now();
    const actorId = input.actor.kind === "system" ? null : input.actor.id;
    const after = await transitionPayout(ctx, tx, {
      payout: row,
      to: TO[input.decision],
      event: `${row.kind}_${TO[input.decision]}`,
      actor: input.actor,
      payload: input.reason === undefined ? {} : { reason: input.reason },
      patch: {
        decidedById: actorId,
        decidedByLabel: input.actor.label,
        decidedAt: now,
        ...(input.decision === "approve" ? { approvedAt: now } : {}),
      },
    });
    const { origin } = input;
    if (origin) {
      await appendAudit(tx, {
        actor: origin.actor,
        action: `${after.kind}.${input.decision}`,
        targetType: after.kind,
        targetId: after.id,
        before: { status: row.status },
        after: { status: after.status, amount: formatAmount(after.amount), address: after.address },
        ...(input.reason === undefined ? {} : { reason: input.reason }),
        ...(origin.ip === undefined ? {} : { ip: origin.ip }),
        ...(origin.userAgent === undefined ? {} : { userAgent: origin.userAgent }),
      });
    }
    return after;
  });
}

function assertDecidable(ctx: Context, row: PayoutRow, input: Pick<DecideInput, "decision" | "actor">): void {
  if (!FROM[input.decision].includes(row.status)) {
    throw new AppError(
      "INVALID_STATE",
      `a ${row.kind} in status ${row.status} cannot be ${input.decision === "approve" ? "approved" : input.decision === "reject" ? "rejected" : "cancelled"}`,
    );
  }
  if (
    input.decision === "approve" &&
    ctx.config.payoutFourEyes &&
    input.actor.kind === "operator" &&
    row.createdByKind === "operator" &&
    row.createdById === input.actor.id
  ) {
    throw new AppError(
      "FOUR_EYES_REQUIRED",
      `the operator who created this ${row.kind} cannot approve it: a second operator must (PAYOUT_FOUR_EYES)`,
    );
  }
}
