/** The operator as the admin API shows it (never a hash, secret or invitation token). */
import type { operators } from "../db/schema.js";

export type OperatorRow = typeof operators.$inferSelect;

export interface OperatorReply {
  id: string;
  email: string | null;
  name: string;
  role: OperatorRow["role"];
  is_builtin: boolean;
  is_active: boolean;
  totp_enabled: boolean;
  /** An invitation was sent and not yet accepted. */
  invitation_pending: boolean;
  created_at: string;
}

export function toOperatorReply(row: OperatorRow): OperatorReply {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    is_builtin: row.isBuiltin,
    is_active: row.isActive,
    totp_enabled: row.totpEnabled,
    invitation_pending: row.invitationHash !== null,
    created_at: row.createdAt.toISOString(),
  };
}
