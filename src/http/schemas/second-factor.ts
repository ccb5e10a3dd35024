/**
 * The second factor a step-up request carries (DESIGN.md 12): `totp_code` or `passkey`, a WebAuthn
 * assertion as @simplewebauthn/browser's startAuthentication returns it, over a challenge from
 * GET /api/v1/admin/me/passkeys/challenge (step-up) or POST /api/v1/admin/auth/passkey-options
 * (sign-in).
 */
import { z } from "zod";

const b64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, "must be base64url");

export const passkeyAssertion = z
  .object({
    id: b64url(1024),
    rawId: b64url(1024),
    type: z.literal("public-key"),
    response: z.object({
      clientDataJSON: b64url(4096),
      authenticatorData: b64url(4096),
      signature: b64url(1024),
      userHandle: b64url(1024).optional(),
    }),
    clientExtensionResults: z.record(z.string(), z.unknown()).optional().default({}),
    authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  })
  .meta({ description: "a passkey assertion (WebAuthn), instead of totp_code" });

export const totpCodeField = z
  .string()
  .min(1)
  .max(32)
  .meta({ description: "a fresh 6-digit code from the operator's authenticator app" });

/** The fields of a step-up body: one of them, when the operator has a second factor. */
export const secondFactorFields = {
  totp_code: totpCodeField.optional(),
  passkey: passkeyAssertion.optional(),
};
