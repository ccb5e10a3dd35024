/**
 * GET /api/v1/admin/audit: the audit log newest first, filtered by actor (operator id, merchant id or
 * label), action (exact, or a prefix ending in "." such as "operator."), target and time, paginated
 * like the order list.
 */
import { and, count, desc, eq, gte, like, lte, or, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { auditLog } from "../db/schema.js";

export interface AuditQuery {
  page: number;
  limit: number;
  actor?: string | undefined;
  action?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

export interface AuditRowReply {
  seq: number;
  id: string;
  created_at: string;
  actor: { kind: string; id: string | null; label: string };
  action: string;
  target_type: string | null;
  target_id: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reason: string | null;
  ip: string | null;
  user_agent: string | null;
  hash: string;
}

export async function listAudit(
  ctx: Context,
  query: AuditQuery,
): Promise<{
  data: AuditRowReply[];
  pagination: { page: number; limit: number; total: number; total_pages: number };
}> {
  const conditions: SQL[] = [];
  if (query.actor !== undefined) {
    conditions.push(or(eq(auditLog.actorId, query.actor), eq(auditLog.actorLabel, query.actor)) as SQL);
  }
  if (query.action !== undefined) {
    conditions.push(
      query.action.endsWith(".")
        ? like(auditLog.action, `${query.action.replace(/[\\%_]/g, "\\$&")}%`)
        : eq(auditLog.action, query.action),
    );
  }
  if (query.targetType !== undefined) conditions.push(eq(auditLog.targetType, query.targetType));
  if (query.targetId !== undefined) conditions.push(eq(auditLog.targetId, query.targetId));
  if (query.from !== undefined) conditions.push(gte(auditLog.createdAt, query.from));
  if (query.to !== undefined) conditions.push(lte(auditLog.createdAt, query.to));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const [rows, totals] = await Promise.all([
    ctx.db
      .select()
      .from(auditLog)
      .where(where)
      .orderBy(desc(auditLog.seq))
      .limit(query.limit)
      .offset((query.page - 1) * query.limit),
    ctx.db.select({ total: count() }).from(auditLog).where(where),
  ]);
  const total = Number(totals[0]?.total ?? 0);
  return {
    data: rows.map((row) => ({
      seq: row.seq,
      id: row.id,
      created_at: row.createdAt.toISOString(),
      actor: { kind: row.actorKind, id: row.actorId, label: row.actorLabel },
      action: row.action,
      target_type: row.targetType,
      target_id: row.targetId,
      before: row.before,
      after: row.after,
      reason: row.reason,
      ip: row.ip,
      user_agent: row.userAgent,
      hash: row.hash,
    })),
    pagination: { page: query.page, limit: query.limit, total, total_pages: Math.ceil(total / query.limit) },
  };
}
