/**
 * Who performed a resolution (DESIGN.md 12 and 13): an operator, a merchant (by its API key
 * prefix) or the system: the audit log's actor (src/audit), so one value is written to the order
 * event, the stray row and the audit row.
 */
import type { AuditActor } from "../audit/audit-types.js";

export type ResolutionActor = AuditActor;

/** Where a resolution came from, for its audit row. */
export interface ResolutionOrigin {
  ip?: string | undefined;
  userAgent?: string | undefined;
}

/** The actor as stored in event payloads and stray rows. */
export function actorRecord(actor: ResolutionActor): Record<string, string> {
  return actor.kind === "system"
    ? { kind: actor.kind, label: actor.label }
    : { kind: actor.kind, id: actor.id, label: actor.label };
}

/** A resolution's reason: required, 1-500 characters, not blank (checked at the edge). */
export const REASON_MAX = 500;
