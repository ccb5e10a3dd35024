/**
 * The owner creates an operator (DESIGN.md 12) with an initial password, or without one: then the
 * reply carries a one-time invitation link (valid 7 days) where the operator sets their own. Only the
 * sha256 of the invitation token is stored.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import type { AuditOrigin } from "../audit/audit-types.js";
import { operators } from "../db/schema.js";
import { describeDatabaseError } from "../db/database-error.js";
import { AppError } from "../errors.js";
import { newId } from "../ids.js";
import type { OperatorRole } from "../admin/operator-types.js";
import { assertPasswordStrength, hashPassword } from "../admin/passwords.js";
import { requireStepUp, type StepUp } from "../admin/step-up.js";
import { toOperatorReply, type OperatorRow } from "./operator-replies.js";

export const INVITATION_SECONDS = 7 * 24 * 3600;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export interface CreateOperatorInput {
  email: string;
  name: string;
  role: OperatorRole;
  password?: string | undefined;
}

export interface CreatedOperator {
  operator: OperatorRow;
  /** Only when no password was given: shown once, never stored. */
  invitationUrl: string | undefined;
}

export function normalizeEmail(email: string): string {
  const normalized = email.trim().toLowerCase();
  if (!EMAIL.test(normalized) || normalized.length > 254) {
    throw new AppError("INVALID_BODY", "email must be an email address");
  }
  return normalized;
}

export function invitationHash(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export async function createOperator(
  ctx: Context,
  input: CreateOperatorInput,
  origin: AuditOrigin,
  stepUp: StepUp,
): Promise<CreatedOperator> {
  // A step-up action (DESIGN.md 12): a stolen owner session alone creates no accounts.
  await requireStepUp(ctx, stepUp);
  const email = normalizeEmail(input.email);
  if (input.password !== undefined) assertPasswordStrength(input.password);
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const token = input.password === undefined ? randomBytes(32).toString("base64url") : undefined;
  const now = ctx.clock.now();
  try {
    const operator = await ctx.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(operators)
        .values({
          id: newId(now.getTime()),
          email,
          name: input.name,
          role: input.role,
          passwordHash,
          invitationHash: token === undefined ? null : invitationHash(token),
          invitationExpiresAt:
            token === undefined ? null : new Date(now.getTime() + INVITATION_SECONDS * 1000),
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (!row) throw new Error("operator insert returned no row");
      await appendAudit(tx, {
        ...origin,
        action: "operator.create",
        targetType: "operator",
        targetId: row.id,
        after: { ...toOperatorReply(row), password: input.password === undefined ? undefined : true },
        at: now,
      });
      return row;
    });
    ctx.log.info({ operatorId: operator.id, role: operator.role }, "operator created");
    const invitationUrl =
      token === undefined ? undefined : `${ctx.config.publicBaseUrl}/admin/invitation#token=${token}`;
    return { operator, invitationUrl };
  } catch (error) {
    if (describeDatabaseError(error)?.sqlstate === "23505")
      throw new AppError("OPERATOR_EXISTS", `an operator with email ${email} exists`);
    throw error;
  }
}
