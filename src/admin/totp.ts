/**
 * TOTP (RFC 6238: SHA-1, 6 digits, 30 s, one step of drift either way) through otplib, and the
 * encryption of TOTP secrets at rest: AES-256-GCM under a key derived from SESSION_SECRET with HKDF,
 * so a database dump alone never yields a second factor. A code is accepted once: the step it
 * matched is stored, and a later code must belong to a later step (compare-and-set, so two replicas
 * racing with the same code accept it once).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { generateSecret, generateURI, verifySync } from "otplib";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { operators } from "../db/schema.js";

export const TOTP_PERIOD_SECONDS = 30;
const ISSUER = "Stablegate";
const CODE = /^\d{6}$/;

function secretKey(sessionSecret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", sessionSecret, "stablegate", "totp secret encryption v1", 32));
}

export function encryptTotpSecret(sessionSecret: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", secretKey(sessionSecret), iv);
  const body = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return [
    "v1",
    iv.toString("base64url"),
    body.toString("base64url"),
    cipher.getAuthTag().toString("base64url"),
  ].join(".");
}

export function decryptTotpSecret(sessionSecret: string, stored: string): string {
  const [version, iv, body, tag] = stored.split(".");
  if (version !== "v1" || iv === undefined || body === undefined || tag === undefined) {
    throw new Error("unknown TOTP secret format");
  }
  const decipher = createDecipheriv("aes-256-gcm", secretKey(sessionSecret), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}

export function newTotpSecret(): string {
  // 20 bytes (160 bits, RFC 4226's recommendation), base32.
  return generateSecret({ length: 20 });
}

export function totpUri(secret: string, accountLabel: string): string {
  return generateURI({ issuer: ISSUER, label: accountLabel, secret, period: TOTP_PERIOD_SECONDS, digits: 6 });
}

/** The time step `code` matches at `now` (one step of drift), after `afterStep`; null otherwise. */
export function matchTotp(secret: string, code: string, now: Date, afterStep: number | null): number | null {
  if (!CODE.test(code)) return null;
  const epoch = Math.floor(now.getTime() / 1000);
  const result = verifySync({
    secret,
    token: code,
    epoch,
    period: TOTP_PERIOD_SECONDS,
    epochTolerance: TOTP_PERIOD_SECONDS,
    ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
  });
  return result.valid ? Math.floor(epoch / TOTP_PERIOD_SECONDS) + result.delta : null;
}

/**
 * Checks `code` against the operator's enrolled secret and consumes its step. False for a wrong
 * code, a code of a step already used (replay) or an operator without TOTP.
 */
export async function consumeTotpCode(
  ctx: Context,
  executor: Executor,
  operatorId: string,
  code: string,
): Promise<boolean> {
  const [row] = await executor
    .select({
      secret: operators.totpSecretEnc,
      lastStep: operators.totpLastStep,
      enabled: operators.totpEnabled,
    })
    .from(operators)
    .where(eq(operators.id, operatorId));
  if (!row?.enabled || row.secret === null) return false;
  const step = matchTotp(
    decryptTotpSecret(ctx.config.sessionSecret, row.secret),
    code,
    ctx.clock.now(),
    row.lastStep,
  );
  if (step === null) return false;
  const claimed = await executor
    .update(operators)
    .set({ totpLastStep: step })
    .where(
      and(eq(operators.id, operatorId), or(isNull(operators.totpLastStep), lt(operators.totpLastStep, step))),
    )
    .returning({ id: operators.id });
  return claimed.length === 1;
}
