/**
 * Login limiter (SPEC.md 5, DESIGN.md 8): at most 5 attempts per 15 minutes per client IP, counted in
 * login_attempts so every API replica sees the same count. Every attempt counts, successful ones
 * included: a correct password does not reset the budget, so an attacker gains nothing by mixing in
 * a known-good login, and an operator needs one login per day. Refused attempts are not recorded, so
 * the lock-out ends 15 minutes after the oldest counted attempt however often the client retries.
 */
import { and, asc, eq, gt, lte, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { loginAttempts } from "../db/schema.js";
import { AppError } from "../errors.js";

export const LOGIN_MAX_ATTEMPTS = 5;
export const LOGIN_WINDOW_SECONDS = 15 * 60;
/** Advisory-lock class of the login limiter; the second key is the hash of the client IP. */
const LOGIN_LOCK_CLASS = 740_100_101;

/**
 * Counts the attempt of `clientIp` now, or throws RATE_LIMITED with Retry-After. Run inside the
 * login transaction: the per-IP advisory lock makes check-and-insert atomic across replicas.
 */
export async function recordLoginAttempt(
  ctx: Context,
  tx: Executor,
  input: { clientIp: string; success: boolean },
): Promise<void> {
  const now = ctx.clock.now();
  const windowStart = new Date(now.getTime() - LOGIN_WINDOW_SECONDS * 1000);
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${LOGIN_LOCK_CLASS}, hashtext(${input.clientIp}))`);
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
  await tx
    .insert(loginAttempts)
    .values({ clientIp: input.clientIp, success: input.success, attemptedAt: now });
}
