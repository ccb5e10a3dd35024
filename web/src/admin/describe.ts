/**
 * Event payloads and audit changes in words, for the timelines and the audit log: labels for the
 * keys, formatted amounts, times and statuses, and no internal identifiers or JSON.
 */
import { formatDate } from "../dates.js";
import { formatUsdt } from "./format.js";
import { actorLabel, fieldLabel, statusLabel } from "./labels.js";

/** Identifiers that mean nothing to an operator reading a timeline (the API's own keys). */
function isInternalKey(name: string): boolean {
  return name === "id" || name.endsWith("_id") || name.endsWith("_key") || name === "seq";
}

/** One value of a payload or an audit change, in words. */
export function formatValue(name: string, value: unknown): string | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "object") {
    const label =
      (value as { label?: unknown; email?: unknown }).label ?? (value as { email?: unknown }).email;
    if (typeof label === "string") return actorLabel(label);
    if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? "" : "s"}`;
    return null;
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  const text = String(value);
  if (/amount|balance/.test(name) && /^\d+(\.\d+)?$/.test(text)) return formatUsdt(text);
  if (name === "status_code") return `HTTP ${text}`;
  if (name === "status" || name.endsWith("_status")) return statusLabel(text);
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(text)) return formatDate(text);
  if (name === "actor" || name.endsWith("_by")) return actorLabel(text);
  if (/^sg_(test|live)_/.test(text)) return "an API key";
  if (/^[a-z]+(_[a-z]+)+$/.test(text)) return statusLabel(text);
  return text;
}

/** An event's payload in words: "Awaiting payment → Confirming · Amount: 9.500000 USDT · Reason: …". */
export function describePayload(payload: Record<string, unknown>): string {
  const parts: string[] = [];
  const from = payload.from;
  const to = payload.to;
  if (typeof from === "string" && typeof to === "string") {
    parts.push(`${statusLabel(from)} → ${statusLabel(to)}`);
  }
  for (const [name, value] of Object.entries(payload)) {
    if (name === "from" || name === "to" || isInternalKey(name)) continue;
    const text = formatValue(name, value);
    if (text !== null) parts.push(`${fieldLabel(name)}: ${text}`);
  }
  return parts.join(" · ");
}

/** An audit row's change in words: "Status: Active → Suspended · Name: Acme". */
export function describeChange(
  before: Record<string, unknown> | null | undefined,
  after: Record<string, unknown> | null | undefined,
): string {
  const names = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].filter(
    (name) => !isInternalKey(name) && name !== "webhook_secret" && name !== "api_key_prefix",
  );
  return names
    .map((name) => {
      const was = before ? formatValue(name, before[name]) : null;
      const now = after ? formatValue(name, after[name]) : null;
      if (was === now) return null;
      if (was === null) return `${fieldLabel(name)}: ${now ?? "—"}`;
      return `${fieldLabel(name)}: ${was} → ${now ?? "—"}`;
    })
    .filter((part): part is string => part !== null)
    .join(" · ");
}
