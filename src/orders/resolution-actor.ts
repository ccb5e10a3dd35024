/**
 * Who performed a resolution (DESIGN.md 12 and 13): an operator, a merchant (by its API key
 * prefix) or the system. The same shape as the audit log's actor (src/audit, issue 22), so one
 * value is written to the order event, the stray row and the audit row.
 */
export type ResolutionActor =
  | { kind: "operator"; id: string; label: string }
  | { kind: "merchant"; id: string; label: string }
  | { kind: "system"; label: string };

/** The actor as stored in event payloads and stray rows. */
export function actorRecord(actor: ResolutionActor): Record<string, string> {
  return actor.kind === "system"
    ? { kind: actor.kind, label: actor.label }
    : { kind: actor.kind, id: actor.id, label: actor.label };
}

/** A resolution's reason: required, trimmed, 1-500 characters (checked at the edge too). */
export const REASON_MAX = 500;
