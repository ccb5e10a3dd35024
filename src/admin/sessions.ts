/**
 * Admin sessions as rows (DESIGN.md 12). A login inserts one; the JWT carries its id; every admin
 * request reads it with its operator in one primary-key statement (a named prepared statement on
 * PostgreSQL), so revoking a row, disabling an operator or changing the owner's ADMIN_PASSWORD ends
 * the session at once on every replica. last_seen_at is written at most once a minute per session,
 * so reads stay reads.
 */
import { and, desc, eq, isNull, ne } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { runPrepared, type PreparedStatement } from "../db/query-rows.js";
import { operatorSessions } from "../db/schema.js";
import { AppError } from "../errors.js";
import { newId } from "../ids.js";
import {
  ADMIN_SESSION_SECONDS,
  invalidAdminToken,
  matchesAdminPassword,
  verifyAdminToken,
} from "./admin-token.js";
import type { AdminOperator, OperatorRole } from "./operator-types.js";
import { roleAllows } from "./permissions.js";

const LAST_SEEN_RESOLUTION_MS = 60_000;

export interface NewSession {
  id: string;
  createdAt: Date;
  expiresAt: Date;
}

export async function createSession(
  ctx: Context,
  executor: Executor,
  input: { operatorId: string; ip?: string | undefined; userAgent?: string | undefined },
): Promise<NewSession> {
  const now = ctx.clock.now();
  const session = {
    id: newId(now.getTime()),
    createdAt: now,
    expiresAt: new Date(now.getTime() + ADMIN_SESSION_SECONDS * 1000),
  };
  await executor.insert(operatorSessions).values({
    ...session,
    operatorId: input.operatorId,
    lastSeenAt: now,
    ip: input.ip ?? null,
    userAgent: input.userAgent?.slice(0, 512) ?? null,
  });
  return session;
}

const SESSION_CHECK: PreparedStatement = {
  name: "sg_admin_session_check",
  text: `SELECT o.id, o.email, o.name, o.role, o.is_builtin, o.is_active, o.totp_enabled,
                EXISTS (SELECT 1 FROM operator_passkeys k WHERE k.operator_id = o.id) AS has_passkey,
                s.revoked_at IS NOT NULL AS revoked,
                floor(extract(epoch FROM s.expires_at) * 1000)::bigint::text AS expires_ms,
                floor(extract(epoch FROM s.last_seen_at) * 1000)::bigint::text AS seen_ms
         FROM operator_sessions s JOIN operators o ON o.id = s.operator_id
         WHERE s.id = $1`,
};

interface SessionCheckRow extends Record<string, unknown> {
  id: string;
  email: string | null;
  name: string;
  role: OperatorRole;
  is_builtin: boolean;
  is_active: boolean;
  totp_enabled: boolean;
  has_passkey: boolean;
  revoked: boolean;
  expires_ms: string;
  seen_ms: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The operator behind an admin_token, or ADMIN_TOKEN_INVALID: bad or expired JWT, unknown, revoked
 * or expired session, disabled operator, or an owner token from before ADMIN_PASSWORD changed.
 */
export async function authenticateSession(ctx: Context, token: string): Promise<AdminOperator> {
  const claims = await verifyAdminToken(ctx, token);
  if (!UUID.test(claims.sessionId)) throw invalidAdminToken();
  const [row] = await runPrepared<SessionCheckRow>(ctx.database, SESSION_CHECK, [claims.sessionId]);
  const now = ctx.clock.now().getTime();
  if (!row || row.revoked || !row.is_active || Number(row.expires_ms) <= now) throw invalidAdminToken();
  if (row.is_builtin && !matchesAdminPassword(ctx, claims.pwd)) throw invalidAdminToken();
  if (now - Number(row.seen_ms) >= LAST_SEEN_RESOLUTION_MS) {
    await ctx.db
      .update(operatorSessions)
      .set({ lastSeenAt: new Date(now) })
      .where(eq(operatorSessions.id, claims.sessionId));
  }
  return {
    id: row.id,
    email: row.email ?? "",
    name: row.name,
    role: row.role,
    sessionId: claims.sessionId,
    totpEnabled: row.totp_enabled,
    hasPasskey: row.has_passkey,
  };
}

export type RevokeReason =
  "logout" | "revoked" | "password_changed" | "role_changed" | "disabled" | "second_factor_changed";

/** Ends one session; false when it was already ended (or never existed). */
export async function revokeSession(
  ctx: Context,
  executor: Executor,
  sessionId: string,
  reason: RevokeReason,
): Promise<boolean> {
  const rows = await executor
    .update(operatorSessions)
    .set({ revokedAt: ctx.clock.now(), revokedReason: reason })
    .where(and(eq(operatorSessions.id, sessionId), isNull(operatorSessions.revokedAt)))
    .returning({ id: operatorSessions.id });
  return rows.length === 1;
}

/** Ends every open session of an operator (but `keep`, the caller's own, when given). */
export async function revokeOperatorSessions(
  ctx: Context,
  executor: Executor,
  operatorId: string,
  reason: RevokeReason,
  keep?: string,
): Promise<number> {
  const rows = await executor
    .update(operatorSessions)
    .set({ revokedAt: ctx.clock.now(), revokedReason: reason })
    .where(
      and(
        eq(operatorSessions.operatorId, operatorId),
        isNull(operatorSessions.revokedAt),
        keep === undefined ? undefined : ne(operatorSessions.id, keep),
      ),
    )
    .returning({ id: operatorSessions.id });
  return rows.length;
}

export interface SessionRow {
  id: string;
  operatorId: string;
  createdAt: Date;
  expiresAt: Date;
  lastSeenAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
  ip: string | null;
  userAgent: string | null;
}

/** Sessions newest first: one operator's, or everyone's when operatorId is undefined. */
export async function listSessions(
  ctx: Context,
  input: { operatorId?: string | undefined; limit?: number },
): Promise<SessionRow[]> {
  // No operator has an id that is not a UUID (and the column's type would refuse the comparison).
  if (input.operatorId !== undefined && !UUID.test(input.operatorId)) return [];
  return ctx.db
    .select()
    .from(operatorSessions)
    .where(input.operatorId === undefined ? undefined : eq(operatorSessions.operatorId, input.operatorId))
    .orderBy(desc(operatorSessions.createdAt))
    .limit(input.limit ?? 100);
}

/**
 * The sessions `viewer` asked to see: its own (the default), one operator's (`operatorId`) or
 * everyone's (`all`). Another operator's sessions need `sessions.manage` (403 ADMIN_FORBIDDEN).
 */
export async function listVisibleSessions(
  ctx: Context,
  viewer: Pick<AdminOperator, "id" | "role">,
  query: { all: boolean; operatorId?: string | undefined },
): Promise<SessionRow[]> {
  const others = query.all || query.operatorId !== undefined;
  if (others && !roleAllows(viewer.role, "sessions.manage")) {
    throw new AppError("ADMIN_FORBIDDEN", "your role may list only your own sessions");
  }
  return listSessions(ctx, { operatorId: query.all ? undefined : (query.operatorId ?? viewer.id) });
}

export async function findSession(ctx: Context, id: string): Promise<SessionRow | undefined> {
  if (!UUID.test(id)) return undefined;
  const [row] = await ctx.db.select().from(operatorSessions).where(eq(operatorSessions.id, id));
  return row;
}
