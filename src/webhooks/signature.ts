/**
 * The webhook signature: `sha256=` + lowercase hex HMAC-SHA256 of the exact body bytes, keyed with
 * the merchant's webhook_secret. Shared by the sender and by verifyWebhook, and nothing else here:
 * this file must stay free of service imports so the merchant-side helper can ship on its own.
 */
import { createHmac } from "node:crypto";

export const SIGNATURE_PREFIX = "sha256=";

export function signWebhookBody(secret: string, body: string | Buffer): string {
  return SIGNATURE_PREFIX + createHmac("sha256", secret).update(body).digest("hex");
}
