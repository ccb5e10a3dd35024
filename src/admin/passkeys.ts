/**
 * Passkeys (WebAuthn, through @simplewebauthn/server) as a second factor beside TOTP (DESIGN.md 12).
 * The relying party is PUBLIC_BASE_URL: its host is the RP ID, its origin the only origin accepted.
 * Credentials are discoverable (resident), so sign-in needs no list of credential ids before the
 * password is checked, and a login reveals nothing about which accounts have passkeys.
 *
 * Challenges are stateless: 16 random bytes, an expiry and a MAC under a key derived from
 * SESSION_SECRET over (purpose, operator, nonce, expiry). An assertion is accepted only with a
 * challenge this server issued, for this purpose and operator, unexpired, and never seen before (a
 * used challenge is a row of webauthn_used_challenges until it would have expired anyway).
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { and, asc, eq, lte, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { operatorPasskeys, webauthnUsedChallenges } from "../db/schema.js";
import { newId } from "../ids.js";

export const PASSKEY_CHALLENGE_SECONDS = 300;
const RP_NAME = "Stablegate";

export type ChallengePurpose = "register" | "login" | "step_up";

export interface PasskeyRow {
  id: string;
  operatorId: string;
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export function relyingParty(ctx: Context): { rpID: string; origin: string } {
  const url = new URL(ctx.config.publicBaseUrl);
  return { rpID: url.hostname, origin: url.origin };
}

function challengeKey(sessionSecret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", sessionSecret, "stablegate", "webauthn challenge v1", 32));
}

function challengeMac(ctx: Context, purpose: ChallengePurpose, operatorId: string, body: Buffer): Buffer {
  return createHmac("sha256", challengeKey(ctx.config.sessionSecret))
    .update(`${purpose}\0${operatorId}\0`)
    .update(body)
    .digest()
    .subarray(0, 16);
}

/** A new challenge for `purpose` (bound to the operator; "" for sign-in, where nobody is known yet). */
export function issueChallenge(ctx: Context, purpose: ChallengePurpose, operatorId: string): string {
  const expiry = Buffer.alloc(8);
  expiry.writeBigUInt64BE(BigInt(ctx.clock.now().getTime() + PASSKEY_CHALLENGE_SECONDS * 1000));
  const body = Buffer.concat([randomBytes(16), expiry]);
  return Buffer.concat([body, challengeMac(ctx, purpose, operatorId, body)]).toString("base64url");
}

/** True when this server issued `challenge` for the purpose and operator and it has not expired. */
function challengeValid(
  ctx: Context,
  challenge: string,
  purpose: ChallengePurpose,
  operatorId: string,
): boolean {
  const raw = Buffer.from(challenge, "base64url");
  if (raw.length !== 40) return false;
  const body = raw.subarray(0, 24);
  if (!timingSafeEqual(raw.subarray(24), challengeMac(ctx, purpose, operatorId, body))) return false;
  return Number(body.readBigUInt64BE(16)) > ctx.clock.now().getTime();
}

/** Records the challenge as used; false when it was used before (a replay). */
async function consumeChallenge(ctx: Context, executor: Executor, challenge: string): Promise<boolean> {
  const now = ctx.clock.now();
  await executor.delete(webauthnUsedChallenges).where(lte(webauthnUsedChallenges.expiresAt, now));
  const inserted = await executor
    .insert(webauthnUsedChallenges)
    .values({ challenge, expiresAt: new Date(now.getTime() + PASSKEY_CHALLENGE_SECONDS * 1000) })
    .onConflictDoNothing()
    .returning({ challenge: webauthnUsedChallenges.challenge });
  return inserted.length === 1;
}

export async function listPasskeys(
  ctx: Context,
  executor: Executor,
  operatorId: string,
): Promise<PasskeyRow[]> {
  return executor
    .select()
    .from(operatorPasskeys)
    .where(eq(operatorPasskeys.operatorId, operatorId))
    .orderBy(asc(operatorPasskeys.createdAt));
}

export async function hasPasskey(executor: Executor, operatorId: string): Promise<boolean> {
  const rows = await executor
    .select({ id: operatorPasskeys.id })
    .from(operatorPasskeys)
    .where(eq(operatorPasskeys.operatorId, operatorId))
    .limit(1);
  return rows.length === 1;
}

export async function registrationOptions(
  ctx: Context,
  operator: { id: string; label: string; name: string },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await listPasskeys(ctx, ctx.db, operator.id);
  return generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: relyingParty(ctx).rpID,
    userName: operator.label,
    userDisplayName: operator.name,
    userID: Buffer.from(operator.id.replace(/-/g, ""), "hex"),
    // Bytes, so options.challenge (their base64url) is the very string challengeValid reads.
    challenge: Buffer.from(issueChallenge(ctx, "register", operator.id), "base64url"),
    timeout: PASSKEY_CHALLENGE_SECONDS * 1000,
    attestationType: "none",
    excludeCredentials: existing.map((row) => ({
      id: row.credentialId,
      transports: row.transports as AuthenticatorTransportFuture[],
    })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  });
}

/** Verifies a registration response and stores the credential; null when it does not verify. */
export async function registerPasskey(
  ctx: Context,
  tx: Executor,
  operatorId: string,
  name: string,
  response: RegistrationResponseJSON,
): Promise<PasskeyRow | null> {
  const rp = relyingParty(ctx);
  let challenge: string | undefined;
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: (value) => {
        challenge = value;
        return challengeValid(ctx, value, "register", operatorId);
      },
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: false,
    });
  } catch {
    return null;
  }
  if (!verified.verified || challenge === undefined) return null;
  if (!(await consumeChallenge(ctx, tx, challenge))) return null;
  const credential = verified.registrationInfo.credential;
  const [row] = await tx
    .insert(operatorPasskeys)
    .values({
      id: newId(ctx.clock.now().getTime()),
      operatorId,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString("base64url"),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name,
      createdAt: ctx.clock.now(),
    })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

export async function authenticationOptions(
  ctx: Context,
  purpose: "login" | "step_up",
  operatorId: string,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const allow = purpose === "step_up" ? await listPasskeys(ctx, ctx.db, operatorId) : [];
  return generateAuthenticationOptions({
    rpID: relyingParty(ctx).rpID,
    challenge: Buffer.from(issueChallenge(ctx, purpose, operatorId), "base64url"),
    timeout: PASSKEY_CHALLENGE_SECONDS * 1000,
    userVerification: "preferred",
    allowCredentials: allow.map((row) => ({
      id: row.credentialId,
      transports: row.transports as AuthenticatorTransportFuture[],
    })),
  });
}

/** The shape of an assertion, checked before anything reads its fields. */
function isAssertion(value: unknown): value is AuthenticationResponseJSON {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  const response = v.response as Record<string, unknown> | undefined;
  return (
    typeof v.id === "string" &&
    typeof v.rawId === "string" &&
    v.type === "public-key" &&
    typeof response === "object" &&
    response !== null &&
    typeof response.clientDataJSON === "string" &&
    typeof response.authenticatorData === "string" &&
    typeof response.signature === "string"
  );
}

/**
 * Verifies a passkey assertion of `operatorId` made for `purpose`: the credential must be theirs,
 * the challenge ours and fresh, the signature good and the counter moving forward. Consumes the
 * challenge and stores the new counter. False for anything else.
 */
export async function verifyPasskeyAssertion(
  ctx: Context,
  executor: Executor,
  operatorId: string,
  purpose: "login" | "step_up",
  assertion: unknown,
): Promise<boolean> {
  if (!isAssertion(assertion)) return false;
  const [row] = await executor
    .select()
    .from(operatorPasskeys)
    .where(and(eq(operatorPasskeys.operatorId, operatorId), eq(operatorPasskeys.credentialId, assertion.id)));
  if (!row) return false;
  const rp = relyingParty(ctx);
  let challenge: string | undefined;
  let result;
  try {
    result = await verifyAuthenticationResponse({
      response: assertion,
      expectedChallenge: (value) => {
        challenge = value;
        // A sign-in challenge is issued before anyone is known; a step-up's names the operator.
        return challengeValid(ctx, value, purpose, purpose === "login" ? "" : operatorId);
      },
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      credential: {
        id: row.credentialId,
        publicKey: Buffer.from(row.publicKey, "base64url"),
        counter: row.counter,
        transports: row.transports as AuthenticatorTransportFuture[],
      },
      requireUserVerification: false,
    });
  } catch {
    return false;
  }
  if (!result.verified || challenge === undefined) return false;
  if (!(await consumeChallenge(ctx, executor, challenge))) return false;
  // Compare-and-set on the counter: two replicas racing with one assertion accept it once. The
  // OR is parenthesised: and() does not wrap a raw fragment, and unwrapped it matched (and bumped)
  // every passkey whose counter was below the new one, of every operator.
  const updated = await executor
    .update(operatorPasskeys)
    .set({ counter: result.authenticationInfo.newCounter, lastUsedAt: ctx.clock.now() })
    .where(
      and(
        eq(operatorPasskeys.id, row.id),
        sql`((${operatorPasskeys.counter} = 0 AND ${result.authenticationInfo.newCounter} = 0) OR ${operatorPasskeys.counter} < ${result.authenticationInfo.newCounter})`,
      ),
    )
    .returning({ id: operatorPasskeys.id });
  return updated.length === 1;
}
