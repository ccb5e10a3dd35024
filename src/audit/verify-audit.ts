/**
 * `stablegate verify-audit`: recomputes the audit chain from the first row and names the first row
 * whose hash does not follow (edited, deleted, inserted or reordered by hand), and checks the chain
 * head agrees with the last row. Reads in pages by seq, so memory stays flat on a long log.
 */
import { asc, gt } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { auditChainHead, auditLog } from "../db/schema.js";
import { auditRowHash, GENESIS_HASH } from "./audit-hash.js";

export interface AuditBreak {
  seq: number;
  id: string;
  reason: string;
}

export interface AuditVerification {
  rows: number;
  lastHash: string;
  broken: AuditBreak | null;
}

const PAGE = 1000;

export async function verifyAudit(db: Executor): Promise<AuditVerification> {
  let prevHash = GENESIS_HASH;
  let expectedSeq = 1;
  let rows = 0;
  for (;;) {
    const page = await db
      .select()
      .from(auditLog)
      .where(gt(auditLog.seq, expectedSeq - 1))
      .orderBy(asc(auditLog.seq))
      .limit(PAGE);
    for (const row of page) {
      if (row.seq !== expectedSeq) {
        return {
          rows,
          lastHash: prevHash,
          broken: { seq: row.seq, id: row.id, reason: `expected seq ${expectedSeq} (a row is missing)` },
        };
      }
      if (row.prevHash !== prevHash) {
        return {
          rows,
          lastHash: prevHash,
          broken: { seq: row.seq, id: row.id, reason: "prev_hash does not match the previous row" },
        };
      }
      const hash = auditRowHash(prevHash, row);
      if (hash !== row.hash) {
        return {
          rows,
          lastHash: prevHash,
          broken: { seq: row.seq, id: row.id, reason: "hash does not match the row's content" },
        };
      }
      prevHash = hash;
      expectedSeq += 1;
      rows += 1;
    }
    if (page.length < PAGE) break;
  }
  const [head] = await db.select().from(auditChainHead);
  if (head && (head.seq !== rows || head.hash !== prevHash)) {
    return {
      rows,
      lastHash: prevHash,
      broken: {
        seq: head.seq,
        id: "audit_chain_head",
        reason: `the chain head names seq ${head.seq}, the log ends at ${rows}`,
      },
    };
  }
  return { rows, lastHash: prevHash, broken: null };
}
