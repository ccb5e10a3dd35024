/**
 * The alert outbox: an alert's message, built once and stored per configured channel in the
 * transaction that fires or resolves it (every attempt sends the same bytes).
 *
 * Every message carries the audit log's head at that moment (`audit_head`: ID:HASH, DESIGN.md 12),
 * so each alert an operator receives is also a copy of the head kept outside the database:
 * `stablegate verify-audit --expect-head ID:HASH` fails if rows up to it are later deleted.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Tx } from "../db/connection.js";
import { newId } from "../ids.js";
import { formatAuditHead, readAuditHead } from "../audit/audit-head.js";
import type { Severity } from "./alert-conditions.js";
import { alertChannels } from "./alert-channels.js";

export interface AlertMessage {
  id: string;
  alert: string;
  severity: Severity;
  state: "firing" | "resolved";
  text: string;
  details: Record<string, string | number | null>;
  at: Date;
}

/**
 * The alert webhook's JSON (DESIGN.md 2) plus `audit_head` (ID:HASH, null while the log is empty).
 */
export function alertBody(m: AlertMessage, auditHead: string | null): string {
  return JSON.stringify({
    alert: m.alert,
    severity: m.severity,
    state: m.state,
    text: m.state === "resolved" ? `Resolved: ${m.text}` : m.text,
    details: m.details,
    audit_head: auditHead,
    at: m.at.toISOString(),
  });
}

export async function enqueueAlert(ctx: Context, tx: Tx, m: AlertMessage): Promise<void> {
  const channels = alertChannels(ctx.config);
  if (channels.length === 0) return;
  const head = await readAuditHead(tx);
  const body = alertBody(m, head ? formatAuditHead(head) : null);
  const at = m.at.toISOString();
  for (const channel of channels) {
    await tx.execute(
      sql`INSERT INTO alert_deliveries (id, alert_id, channel, state, body, status, next_attempt_at, created_at)
          VALUES (${newId()}, ${m.id}, ${channel}, ${m.state}, ${body}, 'pending', ${at}::timestamptz, ${at}::timestamptz)`,
    );
  }
}
