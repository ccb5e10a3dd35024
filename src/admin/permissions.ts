/**
 * THE permission table (DESIGN.md 12): which role may do what. Every admin route names one
 * permission in its config (`config: { permission: "orders.read" }`); the admin session hook refuses
 * a request whose operator's role is not listed with 403 ADMIN_FORBIDDEN, and refuses to register a
 * route that names none. Handlers never compare roles: a finer check inside a handler (e.g. revoking
 * someone else's session) asks `roleAllows` for another permission of this table.
 *
 * | role    | may                                                                                 |
 * |---------|-------------------------------------------------------------------------------------|
 * | owner   | everything, including operators, roles and security settings                        |
 * | admin   | merchants (create, update, rotate keys), every order action, refunds and payouts    |
 * | support | read everything; retry-webhook, retry-sweep, cancel, resolve, create refunds        |
 * | viewer  | read only; never secrets                                                            |
 */
import type { OperatorRole } from "./operator-types.js";

const ALL = ["owner", "admin", "support", "viewer"] as const satisfies readonly OperatorRole[];
const OWNER = ["owner"] as const satisfies readonly OperatorRole[];
const ADMIN = ["owner", "admin"] as const satisfies readonly OperatorRole[];
const SUPPORT = ["owner", "admin", "support"] as const satisfies readonly OperatorRole[];

export const PERMISSIONS = {
  // reads: every role ("read everything"; a viewer reads too, and no read reply carries a secret)
  "stats.read": ALL,
  "wallet.read": ALL,
  "alerts.read": ALL,
  "chain.read": ALL,
  "merchants.read": ALL,
  "orders.read": ALL,
  "strays.read": ALL,
  "payouts.read": ALL,
  "deposit_addresses.read": ALL,
  "ledger.read": ALL,
  "audit.read": ALL,
  // one's own account: profile, password, TOTP, own sessions
  "account.self": ALL,
  "sessions.own": ALL,

  // merchants: replies of create and rotate carry secrets (api_key, webhook_secret), so never viewer
  "merchants.create": ADMIN,
  "merchants.update": ADMIN,
  "merchants.rotate_key": ADMIN,

  // order actions
  "orders.retry_webhook": SUPPORT,
  "orders.retry_sweep": SUPPORT,
  "orders.cancel": SUPPORT,
  "orders.resolve": SUPPORT,
  /** the devnet sandbox's simulated payment */
  "orders.simulate": ADMIN,
  "strays.resolve": SUPPORT,
  /** the sweep of a stray's address, like an order's retry-sweep */
  "strays.retry_sweep": SUPPORT,

  // money out (DESIGN.md 14): support creates refunds but never approves
  "refunds.create": SUPPORT,
  "payouts.create": ADMIN,
  "payouts.approve": ADMIN,
  "payouts.cancel": ADMIN,
  /** re-send a refund's or payout's final webhook, like an order's */
  "payouts.retry_webhook": SUPPORT,

  // static deposit addresses (DESIGN.md 15)
  "deposit_addresses.manage": ADMIN,

  // operators, their roles and anyone's sessions
  "operators.read": OWNER,
  "operators.manage": OWNER,
  "sessions.manage": OWNER,
} as const satisfies Record<string, readonly OperatorRole[]>;

export type Permission = keyof typeof PERMISSIONS;

/**
 * Permissions an operator keeps while ADMIN_REQUIRE_2FA asks them to enrol TOTP first: enough to
 * enrol, see who they are and end their sessions, nothing else.
 */
export const ENROLMENT_PERMISSIONS: ReadonlySet<Permission> = new Set(["account.self", "sessions.own"]);

export function isPermission(value: unknown): value is Permission {
  return typeof value === "string" && Object.hasOwn(PERMISSIONS, value);
}

export function roleAllows(role: OperatorRole, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly OperatorRole[]).includes(role);
}

/** Every permission of a role, for the dashboard (it hides what the server would refuse). */
export function permissionsOf(role: OperatorRole): Permission[] {
  return (Object.keys(PERMISSIONS) as Permission[]).filter((permission) => roleAllows(role, permission));
}
