/** Schemas of operator accounts, one's own account, sessions and the audit log (DESIGN.md 12). */
import { z } from "zod";
import { OPERATOR_ROLES } from "../../admin/operator-types.js";
import { errorReply } from "./error-reply.js";
import { secondFactorFields, totpCodeField } from "./second-factor.js";
import { isoTimestampQuery } from "./order-query.js";

const security = [{ adminCookie: [] }];
const uuidParams = z.object({ id: z.string().max(64) });
const totpCode = totpCodeField;
const currentPassword = z
  .string()
  .min(1)
  .max(1024)
  .meta({ description: "the operator's current password (ADMIN_PASSWORD for the built-in owner)" });
/** Changing one's second factors: the current password and, where one is enrolled, a fresh factor. */
const reauthBody = z.object({ current_password: currentPassword, ...secondFactorFields });
const ok = z.object({ ok: z.literal(true) });

export const operatorReply = z.object({
  id: z.string(),
  email: z.string().nullable().meta({ description: "null for the built-in owner (ADMIN_PASSWORD)" }),
  name: z.string(),
  role: z.enum(OPERATOR_ROLES),
  is_builtin: z.boolean(),
  is_active: z.boolean(),
  totp_enabled: z.boolean(),
  passkeys: z.number().int().meta({ description: "how many passkeys the operator has registered" }),
  second_factor_locked_until: z
    .string()
    .nullable()
    .meta({ description: "while 5 wrong second factors within 15 minutes lock the account's step-ups" }),
  invitation_pending: z.boolean(),
  created_at: z.string(),
});

export const listOperatorsSchema = {
  tags: ["admin operators"],
  security,
  summary: "List operator accounts (owner)",
  response: { 200: z.object({ data: z.array(operatorReply) }), 401: errorReply, 403: errorReply },
};

export const createOperatorSchema = {
  tags: ["admin operators"],
  security,
  summary: "Create an operator account (owner)",
  description:
    "With `password` (12 to 1024 characters) the account can log in at once. Without it the reply carries " +
    "`invitation_url`, a one-time link (7 days) where the operator sets their own password; it is shown only here. " +
    "A step-up action: an owner with a second factor sends `totp_code` or `passkey`.",
  body: z.object({
    email: z.string().min(3).max(254),
    name: z.string().min(1).max(255),
    role: z.enum(OPERATOR_ROLES),
    password: z.string().min(1).max(1024).optional(),
    ...secondFactorFields,
  }),
  response: {
    201: z.object({ operator: operatorReply, invitation_url: z.string().nullable() }),
    400: errorReply,
    401: errorReply,
    403: errorReply,
    409: errorReply,
    429: errorReply,
  },
};

export const updateOperatorSchema = {
  tags: ["admin operators"],
  security,
  summary: "Rename an operator, change their role, or disable / re-enable them (owner)",
  description:
    "Changing the role or disabling revokes the operator's sessions. Changing a role and re-enabling are step-up " +
    "actions: an owner with a second factor sends `totp_code` or `passkey`.",
  params: uuidParams,
  body: z.object({
    name: z.string().min(1).max(255).optional(),
    role: z.enum(OPERATOR_ROLES).optional(),
    is_active: z.boolean().optional(),
    ...secondFactorFields,
  }),
  response: {
    200: operatorReply,
    400: errorReply,
    401: errorReply,
    403: errorReply,
    404: errorReply,
    409: errorReply,
    429: errorReply,
  },
};

export const resetOperatorTotpSchema = {
  tags: ["admin operators"],
  security,
  summary: "Remove an operator's second factors (TOTP and passkeys) after a lost device (owner)",
  description:
    "Needs the owner's current password and, where the owner has a second factor, a fresh one. The operator's " +
    "sessions end.",
  params: uuidParams,
  body: reauthBody,
  response: {
    200: ok,
    400: errorReply,
    401: errorReply,
    403: errorReply,
    404: errorReply,
    409: errorReply,
    429: errorReply,
  },
};

export const unlockSecondFactorSchema = {
  tags: ["admin operators"],
  security,
  summary: "Lift an operator's second-factor lockout (owner; never one's own; a step-up action)",
  params: uuidParams,
  body: z.object(secondFactorFields).nullish(),
  response: {
    200: z.object({ ok: z.literal(true), was_locked: z.boolean() }),
    400: errorReply,
    401: errorReply,
    403: errorReply,
    404: errorReply,
    409: errorReply,
    429: errorReply,
  },
};

export const acceptInvitationSchema = {
  tags: ["admin"],
  summary: "Set the password of an invited operator account (one-time link)",
  body: z.object({ token: z.string().min(1).max(256), password: z.string().min(1).max(1024) }),
  response: { 200: z.object({ ok: z.literal(true), email: z.string() }), 400: errorReply, 404: errorReply },
};

export const meReply = z.object({
  id: z.string(),
  email: z.string().nullable(),
  name: z.string(),
  role: z.enum(OPERATOR_ROLES),
  is_builtin: z.boolean(),
  session_id: z.string(),
  totp_enabled: z.boolean(),
  passkeys: z.number().int(),
  second_factor_locked_until: z.string().nullable(),
  totp_required: z
    .boolean()
    .meta({ description: "ADMIN_REQUIRE_2FA is on and this operator has not enrolled" }),
  recovery_codes_left: z.number().int(),
  permissions: z
    .array(z.string())
    .meta({ description: "what this operator's role may do (src/admin/permissions.ts)" }),
});

export const getMeSchema = {
  tags: ["admin account"],
  security,
  summary: "The signed-in operator, their role and permissions",
  response: { 200: meReply, 401: errorReply },
};

export const changePasswordSchema = {
  tags: ["admin account"],
  security,
  summary: "Change one's own password; one's other sessions are revoked",
  body: z.object({
    current_password: z.string().min(1).max(1024),
    new_password: z.string().min(1).max(1024),
  }),
  response: {
    200: z.object({ ok: z.literal(true), sessions_revoked: z.number().int() }),
    400: errorReply,
    401: errorReply,
    409: errorReply,
  },
};

export const totpSetupSchema = {
  tags: ["admin account"],
  security,
  summary: "Start TOTP enrolment: a new secret and its otpauth:// URI (confirm with the first code)",
  description: "Needs the current password and, where the operator has a passkey, a fresh passkey assertion.",
  body: reauthBody,
  response: {
    200: z.object({ secret: z.string(), otpauth_url: z.string() }),
    400: errorReply,
    401: errorReply,
    409: errorReply,
    429: errorReply,
  },
};

export const totpConfirmSchema = {
  tags: ["admin account"],
  security,
  summary: "Confirm TOTP enrolment with the first code; answers 10 single-use recovery codes (shown once)",
  body: z.object({ totp_code: totpCode }),
  response: {
    200: z.object({ recovery_codes: z.array(z.string()) }),
    400: errorReply,
    401: errorReply,
    409: errorReply,
  },
};

export const totpDisableSchema = {
  tags: ["admin account"],
  security,
  summary: "Turn one's TOTP off; one's other sessions end",
  description:
    "Needs the current password and a fresh second factor. Refused while ADMIN_REQUIRE_2FA is on unless a " +
    "passkey remains.",
  body: reauthBody,
  response: {
    200: z.object({ ok: z.literal(true), sessions_revoked: z.number().int() }),
    400: errorReply,
    401: errorReply,
    409: errorReply,
    429: errorReply,
  },
};

export const recoveryCodesSchema = {
  tags: ["admin account"],
  security,
  summary: "Replace one's recovery codes with 10 new ones (shown once)",
  description: "Needs the current password and a fresh second factor.",
  body: reauthBody,
  response: {
    200: z.object({ recovery_codes: z.array(z.string()) }),
    400: errorReply,
    401: errorReply,
    409: errorReply,
    429: errorReply,
  },
};

const sessionReply = z.object({
  id: z.string(),
  operator_id: z.string(),
  current: z.boolean(),
  created_at: z.string(),
  expires_at: z.string(),
  last_seen_at: z.string(),
  revoked_at: z.string().nullable(),
  revoked_reason: z.string().nullable(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
});

export const listSessionsSchema = {
  tags: ["admin account"],
  security,
  summary: "List sessions: one's own; the owner may pass operator_id (or all=true)",
  querystring: z.object({
    operator_id: z.string().max(64).optional(),
    all: z.enum(["true", "false"]).optional(),
  }),
  response: {
    200: z.object({ data: z.array(sessionReply) }),
    400: errorReply,
    401: errorReply,
    403: errorReply,
  },
};

export const revokeSessionSchema = {
  tags: ["admin account"],
  security,
  summary: "Revoke a session at once (one's own; the owner: anyone's)",
  params: uuidParams,
  response: { 200: ok, 401: errorReply, 404: errorReply },
};

const auditRow = z.object({
  seq: z.number().int(),
  id: z.string(),
  created_at: z.string(),
  actor: z.object({ kind: z.string(), id: z.string().nullable(), label: z.string() }),
  action: z.string(),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  reason: z.string().nullable(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  hash: z.string(),
});

const pageNumber = (max: number) =>
  z
    .string()
    .regex(/^[0-9]{1,9}$/, "must be an integer")
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));

export const listAuditSchema = {
  tags: ["admin audit"],
  security,
  summary: "The audit log, newest first, with filters and pagination",
  querystring: z.object({
    page: pageNumber(1_000_000_000).optional().default(1),
    limit: pageNumber(100).optional().default(50),
    actor: z
      .string()
      .min(1)
      .max(254)
      .optional()
      .meta({ description: "operator or merchant id, or label (email, key prefix)" }),
    action: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: 'exact action, or a prefix ending in "." (e.g. "operator.")' }),
    target_type: z.string().min(1).max(64).optional(),
    target_id: z.string().min(1).max(128).optional(),
    from: isoTimestampQuery().optional(),
    to: isoTimestampQuery().optional(),
  }),
  response: {
    200: z.object({
      data: z.array(auditRow),
      pagination: z.object({
        page: z.number(),
        limit: z.number(),
        total: z.number(),
        total_pages: z.number(),
      }),
    }),
    400: errorReply,
    401: errorReply,
    403: errorReply,
  },
};
