/**
 * The audit chain's head (DESIGN.md 12): the newest row's id and hash, published outside the
 * database (`stablegate verify-audit --head`, the daily `audit_head` alert, every alert message) so
 * an operator holds a copy an attacker with database access cannot rewrite. Deleting the newest rows
 * and rewriting audit_chain_head leaves a chain that verifies; only a head kept elsewhere shows the
 * loss: `verify-audit --expect-head ID:HASH` fails when the chain no longer holds that row.
 */
import { desc, eq } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { auditLog } from "../db/schema.js";

export interface AuditHead {
  seq: number;
  id: string;
  hash: string;
}

/** The form an operator copies and `--expect-head` takes: `ID:HASH`. */
export function formatAuditHead(head: Pick<AuditHead, "id" | "hash">): string {
  return `${head.id}:${head.hash}`;
}

const HEAD_REFERENCE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):([0-9a-f]{64})$/;

/** `ID:HASH` parsed, or undefined when it is not one. */
export function parseAuditHead(text: string): Pick<AuditHead, "id" | "hash"> | undefined {
  const match = HEAD_REFERENCE.exec(text.trim().toLowerCase());
  return match ? { id: match[1] as string, hash: match[2] as string } : undefined;
}

/** The newest row of the log, or undefined while it is empty. */
export async function readAuditHead(db: Executor): Promise<AuditHead | undefined> {
  const [row] = await db
    .select({ seq: auditLog.seq, id: auditLog.id, hash: auditLog.hash })
    .from(auditLog)
    .orderBy(desc(auditLog.seq))
    .limit(1);
  return row;
}

/**
 * Whether the log holds the row `expected` names with that hash. Meaningful after verifyAudit found
 * the chain intact: then every stored hash is the one recomputed from the rows before it, so the
 * row's presence with its hash proves nothing up to it was removed or rewritten.
 */
export async function auditChainHolds(
  db: Executor,
  expected: Pick<AuditHead, "id" | "hash">,
): Promise<boolean> {
  const [row] = await db.select({ hash: auditLog.hash }).from(auditLog).where(eq(auditLog.id, expected.id));
  return row?.hash === expected.hash;
}
