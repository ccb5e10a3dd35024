/** The audit log's entry and actor (DESIGN.md 12). */
export type AuditActor =
  | { kind: "operator"; id: string; label: string }
  /** label: the merchant's API key prefix */
  | { kind: "merchant"; id: string; label: string }
  | { kind: "system"; label: string };

export interface AuditEntry {
  actor: AuditActor;
  /** Dotted: `merchant.create`, `order.cancel`, `payout.approve`, `auth.login_failed`, ... */
  action: string;
  targetType?: string;
  targetId?: string;
  /** The changed fields before and after; secrets are replaced by "[redacted]" on the way in. */
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
  reason?: string;
  ip?: string;
  userAgent?: string;
  /** The row's time; default the database's clock_timestamp() (tests pass their fake clock's). */
  at?: Date;
}

/** Who acted and from where: what a domain function needs to write its audit row. */
export interface AuditOrigin {
  actor: AuditActor;
  ip?: string | undefined;
  userAgent?: string | undefined;
}

export const SYSTEM_ACTOR: AuditActor = { kind: "system", label: "system" };
