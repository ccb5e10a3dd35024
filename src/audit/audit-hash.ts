/**
 * The audit chain's hash (DESIGN.md 12): hash = sha256(prev_hash || canonical row), hex. The
 * canonical row is the JSON of the row's columns other than the two hashes, under fixed key names
 * with every object's keys sorted, so the same row always hashes the same whichever engine or
 * driver read it back. appendAudit and verifyAudit both use this function and nothing else.
 */
import { createHash } from "node:crypto";

export const GENESIS_HASH = "0".repeat(64);

export interface AuditHashedFields {
  seq: number;
  id: string;
  createdAt: Date;
  actorKind: "operator" | "merchant" | "system";
  actorId: string | null;
  actorLabel: string;
  action: string;
  targetType: string | null;
  targetId: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reason: string | null;
  ip: string | null;
  userAgent: string | null;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export function canonicalAuditRow(row: AuditHashedFields): string {
  return canonicalJson({
    seq: row.seq,
    id: row.id,
    created_at: row.createdAt.toISOString(),
    actor_kind: row.actorKind,
    actor_id: row.actorId,
    actor_label: row.actorLabel,
    action: row.action,
    target_type: row.targetType,
    target_id: row.targetId,
    before: row.before,
    after: row.after,
    reason: row.reason,
    ip: row.ip,
    user_agent: row.userAgent,
  });
}

export function auditRowHash(prevHash: string, row: AuditHashedFields): string {
  return createHash("sha256").update(prevHash, "utf8").update(canonicalAuditRow(row), "utf8").digest("hex");
}
