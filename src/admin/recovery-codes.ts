/**
 * Ten single-use recovery codes per TOTP enrolment (DESIGN.md 12), shown once and stored only as
 * HMAC-SHA256 under a key derived from SESSION_SECRET. A code carries 50 random bits, far beyond
 * guessing under the login limiter, so a keyed fast hash is enough (argon2 is for human passwords).
 * A recovery code stands in for a TOTP code at login only, never for a step-up.
 */
import { createHmac, randomInt } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { operatorRecoveryCodes } from "../db/schema.js";

export const RECOVERY_CODE_COUNT = 10;
// Crockford-like base32 without look-alikes (no 0/O, 1/I/L).
const ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
const FORMAT = /^[0-9A-Z]{5}-?[0-9A-Z]{5}$/;

export function hashRecoveryCode(sessionSecret: string, code: string): string {
  return createHmac("sha256", sessionSecret)
    .update("stablegate recovery code\0")
    .update(normalize(code))
    .digest("hex");
}

function normalize(code: string): string {
  return code.trim().toUpperCase().replace(/-/g, "");
}

export function looksLikeRecoveryCode(code: string): boolean {
  return FORMAT.test(code.trim().toUpperCase());
}

function newCode(): string {
  let raw = "";
  for (let i = 0; i < 10; i++) raw += ALPHABET[randomInt(ALPHABET.length)];
  return `${raw.slice(0, 5)}-${raw.slice(5)}`;
}

/** Replaces the operator's codes by ten new ones and returns them (the only time they are seen). */
export async function issueRecoveryCodes(
  ctx: Context,
  executor: Executor,
  operatorId: string,
): Promise<string[]> {
  await executor.delete(operatorRecoveryCodes).where(eq(operatorRecoveryCodes.operatorId, operatorId));
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  const now = ctx.clock.now();
  await executor.insert(operatorRecoveryCodes).values(
    codes.map((code) => ({
      operatorId,
      codeHash: hashRecoveryCode(ctx.config.sessionSecret, code),
      createdAt: now,
    })),
  );
  return codes;
}

/** Marks one unused code of the operator used; false when it is wrong or spent. */
export async function consumeRecoveryCode(
  ctx: Context,
  executor: Executor,
  operatorId: string,
  code: string,
): Promise<boolean> {
  if (!looksLikeRecoveryCode(code)) return false;
  const used = await executor
    .update(operatorRecoveryCodes)
    .set({ usedAt: ctx.clock.now() })
    .where(
      and(
        eq(operatorRecoveryCodes.operatorId, operatorId),
        eq(operatorRecoveryCodes.codeHash, hashRecoveryCode(ctx.config.sessionSecret, code)),
        isNull(operatorRecoveryCodes.usedAt),
      ),
    )
    .returning({ id: operatorRecoveryCodes.id });
  return used.length === 1;
}

export async function countUnusedRecoveryCodes(ctx: Context, operatorId: string): Promise<number> {
  const rows = await ctx.db
    .select({ id: operatorRecoveryCodes.id })
    .from(operatorRecoveryCodes)
    .where(and(eq(operatorRecoveryCodes.operatorId, operatorId), isNull(operatorRecoveryCodes.usedAt)));
  return rows.length;
}
