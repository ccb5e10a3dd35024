/**
 * The daily `audit_head` alert (DESIGN.md 12): once per UTC day the audit log's head (seq, ID:HASH)
 * goes to every alert channel, so the operators' chat or inbox holds a dated copy outside the
 * database. Keyed by the day like an event alert, so any number of workers send it once.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { newId } from "../ids.js";
import { formatAuditHead, readAuditHead } from "../audit/audit-head.js";
import { enqueueAlert } from "./alert-outbox.js";

/** Fires today's `audit_head` alert unless it fired already; true when this call fired it. */
export async function publishAuditHead(ctx: Context): Promise<boolean> {
  const now = ctx.clock.now();
  const day = now.toISOString().slice(0, 10);
  return ctx.db.transaction(async (tx) => {
    const head = await readAuditHead(tx);
    if (!head) return false;
    const reference = formatAuditHead(head);
    const text = `Audit log head on ${day}: seq ${head.seq}, ${reference}. Keep this message: \`stablegate verify-audit --expect-head ${reference}\` fails if any row up to it is deleted or rewritten.`;
    const details = { day, seq: head.seq, id: head.id, hash: head.hash };
    const id = newId();
    const rows = await queryRows<{ id: string }>(
      tx,
      sql`INSERT INTO alerts (id, alert, key, kind, severity, state, text, details, fired_at, resolved_at)
          VALUES (${id}, 'audit_head', ${`audit_head:${day}`}, 'event', 'info', 'firing', ${text},
                  ${JSON.stringify(details)}::jsonb, ${now.toISOString()}::timestamptz, NULL)
          ON CONFLICT (key) WHERE kind = 'event' DO NOTHING
          RETURNING id`,
    );
    if (rows.length === 0) return false;
    await enqueueAlert(ctx, tx, {
      id,
      alert: "audit_head",
      severity: "info",
      state: "firing",
      text,
      details,
      at: now,
    });
    return true;
  });
}
