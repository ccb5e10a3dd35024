import { OPERATOR_ROLES } from "../db/schema.js";

export { OPERATOR_ROLES };
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** The id of the built-in owner row (migration 0009): the ADMIN_PASSWORD login of SPEC 4.3. */
export const BUILTIN_OWNER_ID = "00000000-0000-4000-8000-000000000001";

/** The operator of an authenticated admin request (`request.operator`). */
export interface AdminOperator {
  id: string;
  /** The built-in owner has no email: it logs in with ADMIN_PASSWORD alone. */
  email: string;
  name: string;
  role: OperatorRole;
  sessionId: string;
  totpEnabled: boolean;
  /** At least one passkey registered (a second factor like TOTP). */
  hasPasskey: boolean;
}

/** How an operator is named in audit rows and logs: the email, or "owner" for the built-in one. */
export function operatorLabel(operator: { email: string | null; isBuiltin?: boolean }): string {
  return operator.email ?? "owner";
}
