/**
 * Login limiter (SPEC.md 5, DESIGN.md 8 and 12): at most 5 attempts per 15 minutes per client IP,
 * counted in login_attempts so every API replica sees the same count. Every attempt counts,
 * successful ones included: a correct password does not reset the budget, so an attacker gains
 * nothing by mixing in a known-good login, and an operator needs one login per day. Refused
 * attempts are not recorded, so the lock-out ends 15 minutes after the oldest counted attempt
 * however often the client retries.
 *
 * Per account (DESIGN.md 12): at most 10 FAILED attempts per 15 minutes on one account, from any
 * number of addresses, so spreading a guessing run over many IPs gains nothing. Named operators are
 * keyed by lower-cased email, the built-in owner (ADMIN_PASSWORD) by OWNER_ACCOUNT: the owner's
 * password is the most valuable one to guess. The price: someone who knows an account can keep it
 * locked out from several addresses while they keep failing; the lock-out ends 15 minutes after the
 * failures stop, and every other account signs in meanwhile. Successes do not count here, so a busy
 * operator never locks themself out.
 *
 * Admission comes first (admitLoginAttempt): the attempt is counted, as a failure, before its
 * password is checked, and settleLoginAttempt marks it a success afterwards. So no attempt is
 * checked that the limiter did not admit, and a crash in between leaves a failure on the books.
 */
import { and, asc, eq, gt, lte, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { loginAttempts } from "../db/schema.js";
import { AppError } from "../errors.js";

export const LOGIN_MAX_ATTEMPTS = 5;
export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const LOGIN_ACCOUNT_MAX_FAILURES = 10;
/** The built-in owner's account key (an operator's key is an email, which always holds an "@"). */
export const OWNER_ACCOUNT = "owner";
/** Advisory-lock class of the login limiter; the second key is the hash of the client IP. */
const LOGIN_LOCK_CLASS = 740_100_101;
/** The per-account lock: second key the hash of the account name. */
const LOGIN_ACCOUNT_LOCK_CLASS = 740_100_102;

/**
 * Admits an attempt of `clientIp` on `account` now and counts it (as a failure until
 * settleLoginAttempt), or throws RATE_LIMITED with Retry-After. Its own transaction: the advisory
 * locks make check-and-insert atomic across replicas and are released before any password hashing.
 * Returns the attempt's id.
 */
export async function admitLoginAttempt(
  ctx: Context,
  input: { clientIp: string; account: string },
): Promise<number> {
  return ctx.db.transaction(async (tx) => {
    await checkLoginBudget(ctx, tx, input);
    return insertLoginAttempt(ctx, tx, { ...input, success: false });
  });
}

/** Marks an admitted attempt as a successful login (in the login's transaction). */
export async function settleLoginAttempt(tx: Executor, attemptId: number): Promise<void> {
  await tx.update(loginAttempts).set({ success: true }).where(eq(loginAttempts.id, attemptId));
}

/**
 * Takes the locks and throws RATE_LIMITED when the IP or the account has no attempt left. Call it
 * first in its transaction (it takes its locks first, so concurrent logins never wait on each other
 * in a cycle).
 */
async function checkLoginBudget(
  ctx: Context,
  tx: Executor,
  input: { clientIp: string; account: string },
): Promise<void> {
  const now = ctx.clock.now();
  const windowStart = new Date(now.getTime() - LOGIN_WINDOW_SECONDS * 1000);
  // Always the IP's lock first, then the account's.
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${LOGIN_LOCK_CLASS}, hashtext(${input.clientIp}))`);
  await tx.execute(
    sql`SELECT pg_advisory_xact_lock(${LOGIN_ACCOUNT_LOCK_CLASS}, hashtext(${input.account}))`,
  );
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
  await checkAccountBudget(ctx, tx, input.account, now);
}

async function insertLoginAttempt(
  ctx: Context,
  tx: Executor,
  input: { clientIp: string; account: string; success: boolean },
): Promise<number> {
  const [row] = await tx
    .insert(loginAttempts)
    .values({
      clientIp: input.clientIp,
      account: input.account,
      success: input.success,
      attemptedAt: ctx.clock.now(),
    })
    .returning({ id: loginAttempts.id });
  if (!row) throw new Error("login attempt insert returned no row");
  return row.id;
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
