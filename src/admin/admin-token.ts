/**
 * The admin session is a stateless JWT (HS256, 24 h) in the admin_token cookie. It carries `pwd`, a
 * truncated HMAC of the current ADMIN_PASSWORD under SESSION_SECRET, so changing the password (or the
 * secret) ends every existing session without a session table. Time comes from ctx.clock.
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

export async function signAdminToken(ctx: Context): Promise<string> {
  const issuedAt = Math.floor(ctx.clock.now().getTime() / 1000);
  return new SignJWT({ pwd: passwordBinding(ctx.config.sessionSecret, ctx.config.adminPassword) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(SUBJECT)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ADMIN_SESSION_SECONDS)
    .sign(signingKey(ctx));
}

/** Throws ADMIN_TOKEN_INVALID for a bad signature, an expired token or one from an older password. */
export async function verifyAdminToken(ctx: Context, token: string): Promise<void> {
  let pwd: unknown;
  try {
    const { payload } = await jwtVerify(token, signingKey(ctx), {
      algorithms: ["HS256"],
      audience: AUDIENCE,
      subject: SUBJECT,
      currentDate: ctx.clock.now(),
      maxTokenAge: ADMIN_SESSION_SECONDS,
      requiredClaims: ["exp", "iat"],
    });
    pwd = payload.pwd;
  } catch {
    throw invalidToken();
  }
  const expected = Buffer.from(passwordBinding(ctx.config.sessionSecret, ctx.config.adminPassword));
  const actual = Buffer.from(typeof pwd === "string" ? pwd : "");
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) throw invalidToken();
}

function invalidToken(): AppError {
  return new AppError("ADMIN_TOKEN_INVALID", "admin session is invalid or expired; log in again");
}
