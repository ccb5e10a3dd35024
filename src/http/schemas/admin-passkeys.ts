/** Schemas of passkeys (WebAuthn) as a second factor (DESIGN.md 12). */
import { z } from "zod";
import { errorReply } from "./error-reply.js";
import { secondFactorFields } from "./second-factor.js";

const security = [{ adminCookie: [] }];
const b64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, "must be base64url");
const passkeyName = z.string().trim().min(1).max(64);

/** WebAuthn options as @simplewebauthn/browser takes them (PublicKeyCredential*OptionsJSON). */
const webauthnOptions = z
  .record(z.string(), z.unknown())
  .meta({ description: "WebAuthn options JSON, for navigator.credentials (via @simplewebauthn/browser)" });

const passkeyReply = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});

export const passkeyOptionsSchema = {
  tags: ["admin"],
  summary: "A sign-in challenge for a passkey (discoverable credentials; valid 5 minutes, single use)",
  response: { 200: webauthnOptions },
};

export const stepUpChallengeSchema = {
  tags: ["admin account"],
  security,
  summary: "A step-up challenge for one's passkeys (send the assertion as `passkey` with the action)",
  response: { 200: webauthnOptions, 401: errorReply },
};

export const listPasskeysSchema = {
  tags: ["admin account"],
  security,
  summary: "One's passkeys",
  response: { 200: z.object({ data: z.array(passkeyReply) }), 401: errorReply },
};

export const passkeyRegistrationOptionsSchema = {
  tags: ["admin account"],
  security,
  summary:
    "Start registering a passkey: needs the current password and, where enrolled, a fresh second factor",
  body: z.object({ current_password: z.string().min(1).max(1024), ...secondFactorFields }),
  response: { 200: webauthnOptions, 400: errorReply, 401: errorReply, 429: errorReply },
};

export const addPasskeySchema = {
  tags: ["admin account"],
  security,
  summary: "Finish registering a passkey with the authenticator's response",
  body: z.object({
    name: passkeyName,
    response: z.object({
      id: b64url(1024),
      rawId: b64url(1024),
      type: z.literal("public-key"),
      response: z.object({
        clientDataJSON: b64url(4096),
        attestationObject: b64url(16384),
        authenticatorData: b64url(4096).optional(),
        transports: z
          .array(z.enum(["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"]))
          .max(8)
          .optional(),
        publicKeyAlgorithm: z.number().int().optional(),
        publicKey: b64url(4096).optional(),
      }),
      clientExtensionResults: z.record(z.string(), z.unknown()).optional().default({}),
      authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
    }),
  }),
  response: { 201: passkeyReply, 400: errorReply, 401: errorReply },
};

const passkeyParams = z.object({ id: z.string().max(64) });

export const renamePasskeySchema = {
  tags: ["admin account"],
  security,
  summary: "Rename one of one's passkeys",
  params: passkeyParams,
  body: z.object({ name: passkeyName }),
  response: { 200: passkeyReply, 400: errorReply, 401: errorReply, 404: errorReply },
};

export const removePasskeySchema = {
  tags: ["admin account"],
  security,
  summary: "Remove one of one's passkeys (a step-up action); one's other sessions end",
  params: passkeyParams,
  body: z.object(secondFactorFields).nullish(),
  response: {
    200: z.object({ ok: z.literal(true), sessions_revoked: z.number().int() }),
    400: errorReply,
    401: errorReply,
    404: errorReply,
    409: errorReply,
    429: errorReply,
  },
};
