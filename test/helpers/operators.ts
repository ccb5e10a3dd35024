/**
 * Operator helpers for tests: create accounts through the owner's API, log in as them, and compute
 * TOTP codes at the test clock's time with otplib (the same library, an independent call).
 */
import type { FastifyInstance } from "fastify";
import { generateSync } from "otplib";
import type { OperatorRole } from "../../src/admin/operator-types.js";
import { uniqueIp } from "./admin.js";

export const OPERATOR_PASSWORD = "correct horse battery staple";

export interface CreatedOperator {
  id: string;
  email: string;
  role: OperatorRole;
}

export async function createOperatorViaApi(
  app: FastifyInstance,
  ownerCookie: string,
  input: { email: string; role: OperatorRole; name?: string; password?: string },
  /** The owner's second factor ({totp_code} or {passkey}) when the owner has one: a step-up action. */
  stepUp: Record<string, unknown> = {},
): Promise<CreatedOperator & { invitationUrl: string | null }> {
  const reply = await app.inject({
    method: "POST",
    url: "/api/v1/admin/operators",
    headers: { cookie: ownerCookie },
    payload: {
      name: input.name ?? input.email,
      email: input.email,
      role: input.role,
      password: input.password ?? OPERATOR_PASSWORD,
      ...stepUp,
    },
  });
  if (reply.statusCode !== 201) throw new Error(`create operator failed: ${reply.statusCode} ${reply.body}`);
  const body = reply.json<{ operator: CreatedOperator; invitation_url: string | null }>();
  return { ...body.operator, invitationUrl: body.invitation_url };
}

export function loginReply(
  app: FastifyInstance,
  payload: Record<string, unknown>,
  remoteAddress: string = uniqueIp(),
) {
  return app.inject({ method: "POST", url: "/api/v1/admin/auth/login", payload, remoteAddress });
}

export function cookieOf(reply: {
  headers: Record<string, unknown>;
  statusCode: number;
  body: string;
}): string {
  if (reply.statusCode !== 200) throw new Error(`login failed: ${reply.statusCode} ${reply.body}`);
  const header = reply.headers["set-cookie"];
  const first = Array.isArray(header) ? (header[0] as string) : (header as string);
  return first.split(";")[0] as string;
}

export async function operatorCookie(
  app: FastifyInstance,
  email: string,
  options: { password?: string; totpCode?: string } = {},
): Promise<string> {
  const payload: Record<string, unknown> = { email, password: options.password ?? OPERATOR_PASSWORD };
  if (options.totpCode !== undefined) payload.totp_code = options.totpCode;
  return cookieOf(await loginReply(app, payload));
}

/** The TOTP code of `secret` at `at` (RFC 6238, 30 s, 6 digits). */
export function totpAt(secret: string, at: Date): string {
  return generateSync({ secret, epoch: Math.floor(at.getTime() / 1000) });
}

/**
 * Enrols TOTP for the cookie's operator through the API (with their current password: the owner's
 * is TEST_ADMIN_PASSWORD); returns the secret and recovery codes.
 */
export async function enrolTotp(
  app: FastifyInstance,
  cookie: string,
  now: () => Date,
  currentPassword: string = OPERATOR_PASSWORD,
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await app.inject({
    method: "POST",
    url: "/api/v1/admin/me/totp/setup",
    headers: { cookie },
    payload: { current_password: currentPassword },
  });
  if (setup.statusCode !== 200) throw new Error(`totp setup failed: ${setup.statusCode} ${setup.body}`);
  const { secret } = setup.json<{ secret: string }>();
  const confirm = await app.inject({
    method: "POST",
    url: "/api/v1/admin/me/totp/confirm",
    headers: { cookie },
    payload: { totp_code: totpAt(secret, now()) },
  });
  if (confirm.statusCode !== 200)
    throw new Error(`totp confirm failed: ${confirm.statusCode} ${confirm.body}`);
  return { secret, recoveryCodes: confirm.json<{ recovery_codes: string[] }>().recovery_codes };
}
