import { z } from "zod";
import { errorReply } from "./error-reply.js";
import { secondFactorFields } from "./second-factor.js";

export const loginSchema = {
  tags: ["admin"],
  summary: "Log in; sets the admin_token cookie",
  description:
    "`{password}` alone logs in the built-in owner (ADMIN_PASSWORD, SPEC 4.3). `{email, password}` logs in a " +
    "named operator. An operator with two-factor authentication also sends `totp_code` (a 6-digit code, or one " +
    "of their recovery codes) or `passkey` (an assertion over a challenge of POST /api/v1/admin/auth/passkey-options): " +
    "401 TOTP_REQUIRED without either, 401 TOTP_INVALID / PASSKEY_INVALID when it is wrong or already used, " +
    "429 RATE_LIMITED for 15 minutes after 5 wrong second factors. Limited to 5 attempts per 15 minutes per client address and 10 failed attempts per 15 minutes per account.",
  body: z.object({
    password: z.string().min(1).max(1024),
    email: z.string().min(3).max(254).optional(),
    ...secondFactorFields,
  }),
  response: { 200: z.object({ ok: z.literal(true) }), 400: errorReply, 401: errorReply, 429: errorReply },
};

export const logoutSchema = {
  tags: ["admin"],
  summary: "End the session and clear the admin_token cookie",
  response: { 200: z.object({ ok: z.literal(true) }) },
};
