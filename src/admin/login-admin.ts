/**
 * Admin login (SPEC.md 4.3, DESIGN.md 12): `{password}` is the built-in owner (ADMIN_PASSWORD);
 * `{email, password}` a named operator. An enrolled operator also gives `totp_code` (or one of their
 * recovery codes). Every attempt is counted by the limiter (per IP and per account, the owner
 * included) and leaves one audit row, in the same transaction as the session it creates.
 *
 * The limiter admits an attempt BEFORE any password is checked: admission counts it (as a failure
 * until it succeeds), in a transaction of its own, and only an admitted attempt runs argon2. A
 * refused attempt costs no hashing (argon2id takes 19 MiB and tens of milliseconds, so a flood of
 * refused guesses cannot tie up the CPU) and learns nothing about its guess: it answers
 * RATE_LIMITED whether or not the password was right. A wrong password, an unknown email, a
 * disabled account and an invitation not yet accepted all answer INVALID_PASSWORD alike (argon2
 * runs for an unknown email too). TOTP_REQUIRED / TOTP_INVALID / PASSKEY_INVALID come only after
 * the password was right. The second factor is a TOTP code, a recovery code or a passkey assertion;
 * a wrong one counts toward the lockout shared with step-up actions (factor-lockout.ts), and while
 * that lockout lasts the second-factor step answers RATE_LIMITED, a correct factor included.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import type { AuditActor } from "../audit/audit-types.js";
import { operators } from "../db/schema.js";
import type { Executor } from "../db/connection.js";
import { AppError, isAppError } from "../errors.js";
import { ADMIN_SESSION_SECONDS, signAdminToken } from "./admin-token.js";
import { admitLoginAttempt, OWNER_ACCOUNT, settleLoginAttempt } from "./login-limit.js";
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
  // Named accounts by their email (which always holds an "@"), the owner by OWNER_ACCOUNT.
  const account = email ?? OWNER_ACCOUNT;
  const [operator] = await ctx.db
    .select()
    .from(operators)
    .where(email === undefined ? eq(operators.id, BUILTIN_OWNER_ID) : eq(operators.email, email));
  const actor: AuditActor = operator
    ? { kind: "operator", id: operator.id, label: operatorLabel(operator) }
    : { kind: "system", label: `unknown account ${account}` };
  const meta = { ip: input.clientIp, userAgent: input.userAgent, at: ctx.clock.now() };

  let attemptId: number;
  try {
    attemptId = await admitLoginAttempt(ctx, { clientIp: input.clientIp, account });
  } catch (error) {
    if (isAppError(error) && error.code === "RATE_LIMITED") {
      // Refused before counting and before any password check; the refusal itself is on record.
      await appendAudit(ctx.db, {
        actor,
        action: "auth.login_rate_limited",
        after: { account },
        ...meta,
      });
    }
    throw error;
  }

  let passwordOk: boolean;
  if (email === undefined) {
    // Both sides hashed to a fixed length, then compared in constant time: neither the content nor
    // the length of the real password leaks through timing.
    passwordOk = timingSafeEqual(digest(input.password), digest(ctx.config.adminPassword));
  } else {
    passwordOk = await verifyPassword(operator?.passwordHash ?? null, input.password);
  }
  const allowed = passwordOk && operator !== undefined && operator.isActive;

  let result: { outcome: Outcome; session?: { id: string } };
  try {
    result = await ctx.db.transaction(async (tx) => {
      let outcome: Outcome = allowed ? "ok" : "invalid_password";
      if (allowed && (operator.totpEnabled || (await hasPasskey(tx, operator.id)))) {
        outcome = await secondFactorOutcome(ctx, tx, operator.id, input);
      }
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
      await settleLoginAttempt(tx, attemptId);
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
      // The operator's second factor is locked: the refusal is on record.
      await appendAudit(ctx.db, { actor, action: "auth.login_rate_limited", after: { account }, ...meta });
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
