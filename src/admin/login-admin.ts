/**
 * Admin login (SPEC.md 4.3, DESIGN.md 12): `{password}` is the built-in owner (ADMIN_PASSWORD);
 * `{email, password}` a named operator. An enrolled operator also gives `totp_code` (or one of their
 * recovery codes). Every attempt is counted by the limiter (per IP and per account) and leaves one
 * audit row, in the same transaction as the session it creates.
 *
 * An attempt the limiter refuses answers RATE_LIMITED whether or not the password was right, so a
 * refused client learns nothing about its guess. A wrong password, an unknown email, a disabled
 * account and an invitation not yet accepted all answer INVALID_PASSWORD alike (argon2 runs for an
 * unknown email too). TOTP_REQUIRED / TOTP_INVALID / PASSKEY_INVALID come only after the password
 * was right. The second factor is a TOTP code, a recovery code or a passkey assertion; a wrong one
 * counts toward the lockout shared with step-up actions (factor-lockout.ts), and while that lockout
 * lasts the second-factor step answers RATE_LIMITED, a correct factor included.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import type { AuditActor } from "../audit/audit-types.js";
import type { Executor } from "../db/connection.js";
import { operators } from "../db/schema.js";
import { AppError, isAppError } from "../errors.js";
import { ADMIN_SESSION_SECONDS, signAdminToken } from "./admin-token.js";
import { checkLoginBudget, insertLoginAttempt } from "./login-limit.js";
import { BUILTIN_OWNER_ID, operatorLabel } from "./operator-types.js";
import { verifyPassword } from "./passwords.js";
import { assertFactorNotLocked, recordFactorFailure } from "./factor-lockout.js";
import { hasPasskey, verifyPasskeyAssertion } from "./passkeys.js";
import { consumeRecoveryCode, looksLikeRecoveryCode } from "./recovery-codes.js";
import { createSession } from "./sessions.js";
import { consumeTotpCode } from "./totp.js";

export interface AdminLogin {
  token: string;
  maxAgeSeconds: number;
}

export interface LoginInput {
  password: string;
  email?: string | undefined;
  totpCode?: string | undefined;
  /** A WebAuthn assertion over a sign-in challenge (POST /api/v1/admin/auth/passkey-options). */
  passkey?: unknown;
  clientIp: string;
  userAgent?: string | undefined;
}

type Outcome = "ok" | "invalid_password" | "totp_required" | "totp_invalid" | "passkey_invalid";

export async function loginAdmin(ctx: Context, input: LoginInput): Promise<AdminLogin> {
  const email = input.email?.trim().toLowerCase();
  const account = email ?? "owner";
  // The built-in owner is limited per IP only (SPEC 5): nobody can lock the owner out of their own
  // deployment by failing logins from many addresses. Named accounts are limited per account too.
  const limitedAccount = email;
  const [operator] = await ctx.db
    .select()
    .from(operators)
    .where(email === undefined ? eq(operators.id, BUILTIN_OWNER_ID) : eq(operators.email, email));

  let passwordOk: boolean;
  if (email === undefined) {
    // Both sides hashed to a fixed length, then compared in constant time: neither the content nor
    // the length of the real password leaks through timing.
    passwordOk = timingSafeEqual(digest(input.password), digest(ctx.config.adminPassword));
  } else {
    passwordOk = await verifyPassword(operator?.passwordHash ?? null, input.password);
  }
  const allowed = passwordOk && operator !== undefined && operator.isActive;
  const actor: AuditActor = operator
    ? { kind: "operator", id: operator.id, label: operatorLabel(operator) }
    : { kind: "system", label: `unknown account ${account}` };
  const meta = { ip: input.clientIp, userAgent: input.userAgent, at: ctx.clock.now() };

  let result: { outcome: Outcome; session?: { id: string } };
  try {
    result = await ctx.db.transaction(async (tx) => {
      await checkLoginBudget(ctx, tx, { clientIp: input.clientIp, account: limitedAccount });
      let outcome: Outcome = allowed ? "ok" : "invalid_password";
      if (allowed && (operator.totpEnabled || (await hasPasskey(tx, operator.id)))) {
        outcome = await secondFactorOutcome(ctx, tx, operator.id, input);
      }
      await insertLoginAttempt(ctx, tx, {
        clientIp: input.clientIp,
        account: limitedAccount,
        success: outcome === "ok",
      });
      if (outcome !== "ok" || !operator) {
        await appendAudit(tx, {
          actor,
          action: "auth.login_failed",
          targetType: "operator",
          ...(operator ? { targetId: operator.id } : {}),
          after: { account, reason: outcome },
          ...meta,
        });
        return { outcome };
      }
      const session = await createSession(ctx, tx, {
        operatorId: operator.id,
        ip: input.clientIp,
        userAgent: input.userAgent,
      });
      await appendAudit(tx, {
        actor,
        action: "auth.login",
        targetType: "session",
        targetId: session.id,
        after: { account, totp: operator.totpEnabled, passkey: input.passkey !== undefined },
        ...meta,
      });
      return { outcome, session };
    });
  } catch (error) {
    if (isAppError(error) && error.code === "RATE_LIMITED") {
      // Refused before counting (the transaction rolled back); the refusal itself is still on record.
      await appendAudit(ctx.db, {
        actor,
        action: "auth.login_rate_limited",
        after: { account },
        ...meta,
      });
    }
    throw error;
  }
  if ((result.outcome === "totp_invalid" || result.outcome === "passkey_invalid") && operator) {
    await recordFactorFailure(ctx, { id: operator.id, label: operatorLabel(operator) }, "login", {
      actor,
      ...meta,
    });
  }

  switch (result.outcome) {
    case "ok":
      break;
    case "invalid_password":
      ctx.log.info({ clientIp: input.clientIp }, "admin login failed");
      throw new AppError("INVALID_PASSWORD", "wrong password");
    case "totp_required":
      throw new AppError("TOTP_REQUIRED", "this account has two-factor authentication: send totp_code");
    case "totp_invalid":
      ctx.log.info({ clientIp: input.clientIp }, "admin login failed: wrong authenticator code");
      throw new AppError("TOTP_INVALID", "the authenticator code is wrong or was already used");
    case "passkey_invalid":
      ctx.log.info({ clientIp: input.clientIp }, "admin login failed: passkey not accepted");
      throw new AppError(
        "PASSKEY_INVALID",
        "the passkey was not accepted: unknown, removed, or its challenge is stale",
      );
  }
  if (!operator || !result.session) throw new Error("login succeeded without a session");
  ctx.log.info({ clientIp: input.clientIp, operatorId: operator.id }, "admin logged in");
  const token = await signAdminToken(ctx, { id: result.session.id, builtinOwner: operator.isBuiltin });
  return { token, maxAgeSeconds: ADMIN_SESSION_SECONDS };
}

/** The second-factor step of a login whose password was right (RATE_LIMITED while locked). */
async function secondFactorOutcome(
  ctx: Context,
  tx: Executor,
  operatorId: string,
  input: LoginInput,
): Promise<Outcome> {
  await assertFactorNotLocked(ctx, tx, operatorId);
  if (input.passkey !== undefined) {
    return (await verifyPasskeyAssertion(ctx, tx, operatorId, "login", input.passkey))
      ? "ok"
      : "passkey_invalid";
  }
  const code = input.totpCode?.trim() ?? "";
  if (code === "") return "totp_required";
  const accepted = looksLikeRecoveryCode(code)
    ? await consumeRecoveryCode(ctx, tx, operatorId, code)
    : await consumeTotpCode(ctx, tx, operatorId, code);
  return accepted ? "ok" : "totp_invalid";
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}
