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
  passkeys: number;
  second_factor_locked_until: string | null;
  /** An invitation was sent and not yet accepted. */
  invitation_pending: boolean;
  created_at: string;
}

/** What an operator's second factors look like now (passkey count, lockout). */
export interface FactorState {
  passkeys: number;
  lockedUntil: Date | null;
}

export function toOperatorReply(
  row: OperatorRow,
  factors: FactorState = { passkeys: 0, lockedUntil: null },
): OperatorReply {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    is_builtin: row.isBuiltin,
    is_active: row.isActive,
    totp_enabled: row.totpEnabled,
    passkeys: factors.passkeys,
    second_factor_locked_until: factors.lockedUntil?.toISOString() ?? null,
    invitation_pending: row.invitationHash !== null,
    created_at: row.createdAt.toISOString(),
  };
}
