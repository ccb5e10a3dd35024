/**
 * The limit on guessing a second factor (DESIGN.md 12). Every wrong code, at login or at a step-up,
 * and every wrong current password on a change of second factors, is a row of
 * operator_factor_failures; five within 15 minutes lock that operator's second factor: every step-up and every second-factor login answers 429 RATE_LIMITED with Retry-After, a correct
 * code included, for 15 minutes from the failure that caused it, or until the owner unlocks it. The
 * rows live in the database, so the count is the same on every replica; an advisory lock per
 * operator makes "count, then record" atomic. A failure is recorded on its own connection, so it
 * stays counted when the action that asked for the code rolls back.
 *
 * A lockout is an audit row and an operator alert (`second_factor_locked`), written in the same
 * transaction as the failure that caused it.
 */
import { and, desc, eq, gt, lte, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { enqueueAlert } from "../alerts/alert-outbox.js";
import { appendAudit } from "../audit/append-audit.js";
import type { AuditOrigin } from "../audit/audit-types.js";
import type { Executor, Tx } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { operatorFactorFailures } from "../db/schema.js";
import { AppError } from "../errors.js";
import { newId } from "../ids.js";

export const FACTOR_MAX_FAILURES = 5;
export const FACTOR_WINDOW_SECONDS = 15 * 60;
/** Advisory-lock class of the second-factor limiter; the second key is the hash of the operator id. */
export const FACTOR_LOCK_CLASS = 740_100_103;

/** Where the wrong factor was given; `password`: a wrong current password on a second-factor change. */
export type FactorContext = "login" | "step_up" | "password";

/** When the operator's lockout ends, or null when they are not locked out at `now`. */
export async function factorLockedUntil(
  ctx: Context,
  executor: Executor,
  operatorId: string,
): Promise<Date | null> {
  const now = ctx.clock.now();
  const windowStart = new Date(now.getTime() - FACTOR_WINDOW_SECONDS * 1000);
  const recent = await executor
    .select({ failedAt: operatorFactorFailures.failedAt })
    .from(operatorFactorFailures)
    .where(
      and(
        eq(operatorFactorFailures.operatorId, operatorId),
        gt(operatorFactorFailures.failedAt, windowStart),
      ),
    )
    .orderBy(desc(operatorFactorFailures.failedAt))
    .limit(FACTOR_MAX_FAILURES);
  if (recent.length < FACTOR_MAX_FAILURES) return null;
  // Refused attempts are never recorded, so the newest failure is the one that locked.
  const newest = recent[0]?.failedAt ?? now;
  return new Date(newest.getTime() + FACTOR_WINDOW_SECONDS * 1000);
}

/** The operator's lockout end now, for replies (null when not locked). */
export function secondFactorLockedUntil(ctx: Context, operatorId: string): Promise<Date | null> {
  return factorLockedUntil(ctx, ctx.db, operatorId);
}

function lockedOut(ctx: Context, until: Date): AppError {
  const retryAfter = Math.max(1, Math.ceil((until.getTime() - ctx.clock.now().getTime()) / 1000));
  return new AppError(
    "RATE_LIMITED",
    "too many wrong second-factor codes: this account's second factor is locked; try again later or ask the owner to unlock it",
    { retryAfter },
  );
}

/** Throws RATE_LIMITED (with Retry-After) while the operator's second factor is locked. */
export async function assertFactorNotLocked(
  ctx: Context,
  executor: Executor,
  operatorId: string,
): Promise<void> {
  const until = await factorLockedUntil(ctx, executor, operatorId);
  if (until !== null) throw lockedOut(ctx, until);
}

/**
 * Records one wrong code of the operator. When it is the fifth in the window, the lockout starts:
 * audit row and alert in the same transaction. Returns true when this failure locked the account.
 */
export async function recordFactorFailure(
  ctx: Context,
  operator: { id: string; label: string },
  context: FactorContext,
  origin: AuditOrigin,
): Promise<boolean> {
  const now = ctx.clock.now();
  const windowStart = new Date(now.getTime() - FACTOR_WINDOW_SECONDS * 1000);
  return ctx.db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${FACTOR_LOCK_CLASS}, hashtext(${operator.id}))`);
    // Already locked (a concurrent guess got there first): this attempt was refused, not counted.
    if ((await factorLockedUntil(ctx, tx, operator.id)) !== null) return false;
    await tx
      .delete(operatorFactorFailures)
      .where(
        and(
          eq(operatorFactorFailures.operatorId, operator.id),
          lte(operatorFactorFailures.failedAt, windowStart),
        ),
      );
    await tx.insert(operatorFactorFailures).values({ operatorId: operator.id, failedAt: now, context });
    const until = await factorLockedUntil(ctx, tx, operator.id);
    if (until === null) return false;
    await appendAudit(tx, {
      ...origin,
      action: "operator.second_factor_locked",
      targetType: "operator",
      targetId: operator.id,
      after: { failures: FACTOR_MAX_FAILURES, locked_until: until.toISOString(), context },
      at: now,
    });
    await fireLockoutAlert(ctx, tx, operator, until);
    ctx.log.warn({ operatorId: operator.id, context }, "second factor locked after repeated wrong codes");
    return true;
  });
}

async function fireLockoutAlert(
  ctx: Context,
  tx: Tx,
  operator: { id: string; label: string },
  until: Date,
): Promise<void> {
  const now = ctx.clock.now();
  const id = newId();
  const text = `Operator ${operator.label} gave ${FACTOR_MAX_FAILURES} wrong second-factor codes within ${FACTOR_WINDOW_SECONDS / 60} minutes: their step-ups and second-factor logins are locked until ${until.toISOString()} (the owner can unlock them)`;
  const details = { operator_id: operator.id, operator: operator.label, locked_until: until.toISOString() };
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`INSERT INTO alerts (id, alert, key, kind, severity, state, text, details, fired_at, resolved_at)
        VALUES (${id}, 'second_factor_locked', ${`lockout:${operator.id}:${now.toISOString()}`}, 'event', 'warning',
                'firing', ${text}, ${JSON.stringify(details)}::jsonb, ${now.toISOString()}::timestamptz, NULL)
        ON CONFLICT (key) WHERE kind = 'event' DO NOTHING
        RETURNING id`,
  );
  if (rows.length === 0) return;
  await enqueueAlert(ctx, tx, {
    id,
    alert: "second_factor_locked",
    severity: "warning",
    state: "firing",
    text,
    details,
    at: now,
  });
}
