/**
 * The admin session token: a JWT (HS256, 24 h) in the admin_token cookie, carrying `sid`, the id of
 * the session row that every admin request checks (src/admin/sessions.ts), so a session ends the
 * moment its row is revoked. Tokens of the built-in owner also carry `pwd`, a truncated HMAC of the
 * current ADMIN_PASSWORD under SESSION_SECRET, so changing that password (or the secret) still ends
 * every owner session as before. Time comes from ctx.clock.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
// The two entry points only: the package root loads all of jose (JWE, JWKS, key import/export).
import { SignJWT } from "jose/jwt/sign";
import { jwtVerify } from "jose/jwt/verify";
import type { Context } from "../context.js";
import { AppError } from "../errors.js";

export const ADMIN_SESSION_SECONDS = 24 * 60 * 60;
const SUBJECT = "admin";
const AUDIENCE = "stablegate-admin";

function signingKey(ctx: Context): Uint8Array {
  return new TextEncoder().encode(ctx.config.sessionSecret);
}

/** 128 bits of HMAC-SHA256: binds a token to the password without revealing anything about it. */
export function passwordBinding(sessionSecret: string, adminPassword: string): string {
  return createHmac("sha256", sessionSecret)
    .update("stablegate admin password\0")
    .update(adminPassword, "utf8")
    .digest("base64url")
    .slice(0, 22);
}

export async function signAdminToken(
  ctx: Context,
  session: { id: string; builtinOwner: boolean; issuedAt?: Date },
): Promise<string> {
  const issuedAt = Math.floor((session.issuedAt ?? ctx.clock.now()).getTime() / 1000);
  const claims: Record<string, string> = { sid: session.id };
  if (session.builtinOwner) claims.pwd = passwordBinding(ctx.config.sessionSecret, ctx.config.adminPassword);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(SUBJECT)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ADMIN_SESSION_SECONDS)
    .sign(signingKey(ctx));
}

export interface AdminTokenClaims {
  sessionId: string;
  pwd: string | undefined;
}

/** Throws ADMIN_TOKEN_INVALID for a bad signature, an expired token or one without a session id. */
export async function verifyAdminToken(ctx: Context, token: string): Promise<AdminTokenClaims> {
  try {
    const { payload } = await jwtVerify(token, signingKey(ctx), {
      algorithms: ["HS256"],
      audience: AUDIENCE,
      subject: SUBJECT,
      currentDate: ctx.clock.now(),
      maxTokenAge: ADMIN_SESSION_SECONDS,
      requiredClaims: ["exp", "iat", "sid"],
    });
    if (typeof payload.sid !== "string") throw invalidAdminToken();
    return { sessionId: payload.sid, pwd: typeof payload.pwd === "string" ? payload.pwd : undefined };
  } catch {
    throw invalidAdminToken();
  }
}

/** True when `pwd` is the binding of the current ADMIN_PASSWORD (constant time). */
export function matchesAdminPassword(ctx: Context, pwd: string | undefined): boolean {
  const expected = Buffer.from(passwordBinding(ctx.config.sessionSecret, ctx.config.adminPassword));
  const actual = Buffer.from(pwd ?? "");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export function invalidAdminToken(): AppError {
  return new AppError("ADMIN_TOKEN_INVALID", "admin session is invalid or expired; log in again");
}
