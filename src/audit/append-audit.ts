/**
 * appendAudit(executor, entry): one row of the hash-chained audit log (DESIGN.md 12), written in the
 * caller's transaction so the row commits or rolls back with the change it records.
 *
 * Linear under concurrency: the append locks the single chain-head row (SELECT ... FOR UPDATE) and
 * holds it until the caller's transaction ends, so two appends never read the same previous hash,
 * and seq has no gaps (a rolled-back append takes its seq back with it). Call it as the LAST
 * statement of the transaction: the lock then covers only the commit, and a transaction never waits
 * for the head while holding another lock someone queued behind the head needs.
 */
import { eq, sql } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { auditChainHead, auditLog } from "../db/schema.js";
import { newId } from "../ids.js";
import { auditRowHash, type AuditHashedFields } from "./audit-hash.js";
import type { AuditEntry } from "./audit-types.js";
import { redactSecrets } from "./redact.js";

export type { AuditActor, AuditEntry, AuditOrigin } from "./audit-types.js";

/** Longest stored user agent / reason; longer ones are cut (an audit row is not a log dump). */
const MAX_TEXT = 512;

export async function appendAudit(executor: Executor, entry: AuditEntry): Promise<void> {
  // A savepoint inside the caller's transaction, or a transaction of its own when called on the
  // database: the head lock and the insert are never split across statements without one.
  await executor.transaction(async (tx) => {
    const [current] = await queryRows<{ seq: string; hash: string; now_ms: string }>(
      tx,
      sql`SELECT seq::text AS seq, hash,
                 floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS now_ms
          FROM audit_chain_head WHERE id FOR UPDATE`,
    );
    if (!current) throw new Error("audit_chain_head is missing (migration 0009)");
    const seq = Number(current.seq) + 1;
    const createdAt = entry.at ?? new Date(Number(current.now_ms));
    const row: AuditHashedFields = {
      seq,
      id: newId(createdAt.getTime()),
      // Stored and hashed at millisecond precision, what a JavaScript Date holds.
      createdAt: new Date(Math.floor(createdAt.getTime())),
      actorKind: entry.actor.kind,
      actorId: entry.actor.kind === "system" ? null : entry.actor.id,
      actorLabel: entry.actor.label,
      action: entry.action,
      targetType: entry.targetType ?? null,
      targetId: entry.targetId ?? null,
      before: entry.before ? (redactSecrets(entry.before) as Record<string, unknown>) : null,
      after: entry.after ? (redactSecrets(entry.after) as Record<string, unknown>) : null,
      reason: cut(entry.reason),
      ip: cut(entry.ip),
      userAgent: cut(entry.userAgent),
    };
    const hash = auditRowHash(current.hash, row);
    await tx.insert(auditLog).values({ ...row, prevHash: current.hash, hash });
    await tx.update(auditChainHead).set({ seq, hash }).where(eq(auditChainHead.id, true));
  });
}

function cut(value: string | undefined): string | null {
  if (value === undefined) return null;
  return value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) : value;
}
