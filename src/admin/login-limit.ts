/**
 * Login limiter (SPEC.md 5, DESIGN.md 8): at most 5 attempts per 15 minutes per client IP, counted in
 * login_attempts so every API replica sees the same count. Every attempt counts, successful ones
 * included: a correct password does not reset the budget, so an attacker gains nothing by mixing in
 * a known-good login, and an operator needs one login per day. Refused attempts are not recorded, so
 * the lock-out ends 15 minutes after the oldest counted attempt however often the client retries.
 *
 * Per account (DESIGN.md 12): at most 10 FAILED attempts per 15 minutes on one named operator (by
 * lower-cased email), from any number of addresses, so spreading a guessing run over many IPs gains
 * nothing. The price: someone who knows an email can keep that account locked out from several
 * addresses; the lock-out ends 15 minutes after the failures stop. Successes do not count here, so a
 * busy operator never locks themself out. The built-in owner (ADMIN_PASSWORD) is counted per IP only,
 * so nobody can lock the owner out of their own deployment.
 */
import { and, asc, eq, gt, lte, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { loginAttempts } from "../db/schema.js";
import { AppError } from "../errors.js";

export const LOGIN_MAX_ATTEMPTS = 5;
export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_ACCOUNT_MAX_FAILURES = 10;
/** Advisory-lock class of the login limiter; the second key is the hash of the client IP. */
const LOGIN_LOCK_CLASS = 740_100_101;
/** The per-account lock: second key the hash of the account name. */
const LOGIN_ACCOUNT_LOCK_CLASS = 740_100_102;

/**
 * Counts the attempt of `clientIp` now, or throws RATE_LIMITED with Retry-After. Run inside the
 * login transaction: the advisory locks make check-and-insert atomic across replicas.
 */
export async function recordLoginAttempt(
  ctx: Context,
  tx: Executor,
  input: { clientIp: string; account?: string | undefined; success: boolean },
): Promise<void> {
  await checkLoginBudget(ctx, tx, input);
  await insertLoginAttempt(ctx, tx, input);
}

/**
 * The first half of recordLoginAttempt: takes the locks and throws RATE_LIMITED when the IP or the
 * account has no attempt left. Call it before anything else of the login transaction (it takes its
 * locks first, so concurrent logins never wait on each other in a cycle), and insertLoginAttempt
 * once the outcome is known.
 */
export async function checkLoginBudget(
  ctx: Context,
  tx: Executor,
  input: { clientIp: string; account?: string | undefined },
): Promise<void> {
  const now = ctx.clock.now();
  const windowStart = new Date(now.getTime() - LOGIN_WINDOW_SECONDS * 1000);
  // Always the IP's lock first, then the account's.
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${LOGIN_LOCK_CLASS}, hashtext(${input.clientIp}))`);
  if (input.account !== undefined) {
    await tx.execute(
      sql`SELECT pg_advisory_xact_lock(${LOGIN_ACCOUNT_LOCK_CLASS}, hashtext(${input.account}))`,
    );
  }
  // An attempt counts for exactly LOGIN_WINDOW_SECONDS; rows past that never count again, and
  // pruning them here keeps the table small.
  await tx.delete(loginAttempts).where(lte(loginAttempts.attemptedAt, windowStart));
  const counted = await tx
    .select({ attemptedAt: loginAttempts.attemptedAt })
    .from(loginAttempts)
    .where(and(eq(loginAttempts.clientIp, input.clientIp), gt(loginAttempts.attemptedAt, windowStart)))
    .orderBy(asc(loginAttempts.attemptedAt))
    .limit(LOGIN_MAX_ATTEMPTS);
  if (counted.length >= LOGIN_MAX_ATTEMPTS) {
    const oldest = counted[0]?.attemptedAt ?? now;
    const freeAt = oldest.getTime() + LOGIN_WINDOW_SECONDS * 1000;
    const retryAfter = Math.max(1, Math.ceil((freeAt - now.getTime()) / 1000));
    ctx.log.warn({ clientIp: input.clientIp, retryAfter }, "admin login rate limited");
    throw new AppError("RATE_LIMITED", "too many login attempts; try again later", { retryAfter });
  }
  if (input.account !== undefined) await checkAccountBudget(ctx, tx, input.account, now);
}

export async function insertLoginAttempt(
  ctx: Context,
  tx: Executor,
  input: { clientIp: string; account?: string | undefined; success: boolean },
): Promise<void> {
  await tx.insert(loginAttempts).values({
    clientIp: input.clientIp,
    account: input.account ?? null,
    success: input.success,
    attemptedAt: ctx.clock.now(),
  });
}

async function checkAccountBudget(ctx: Context, tx: Executor, account: string, now: Date): Promise<void> {
  const windowStart = new Date(now.getTime() - LOGIN_WINDOW_SECONDS * 1000);
  const failed = await tx
    .select({ attemptedAt: loginAttempts.attemptedAt })
    .from(loginAttempts)
    .where(
      and(
        eq(loginAttempts.account, account),
        eq(loginAttempts.success, false),
        gt(loginAttempts.attemptedAt, windowStart),
      ),
    )
    .orderBy(asc(loginAttempts.attemptedAt))
    .limit(LOGIN_ACCOUNT_MAX_FAILURES);
  if (failed.length >= LOGIN_ACCOUNT_MAX_FAILURES) {
    const oldest = failed[0]?.attemptedAt ?? now;
    const retryAfter = Math.max(
      1,
      Math.ceil((oldest.getTime() + LOGIN_WINDOW_SECONDS * 1000 - now.getTime()) / 1000),
    );
    ctx.log.warn({ retryAfter }, "admin login rate limited for the account");
    throw new AppError("RATE_LIMITED", "too many failed logins on this account; try again later", {
      retryAfter,
    });
  }
}
