/**
 * Merchant-side verification of a Stablegate webhook: recompute the HMAC over the raw body bytes
 * (never a re-serialised object), compare in constant time, optionally reject stale timestamps,
 * then parse. Depends on node:crypto only, so it can be copied into a merchant's codebase as is.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { WebhookPayload } from "./webhook-payload.js";

export type { WebhookPayload };

export type WebhookHeaders = Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /**
   * Maximum distance in seconds between X-Timestamp and `now` (default 300). 0 or Infinity turns
   * the check off. The signature covers the body only, so this limits how long a captured request
   * can be replayed; dedupe on X-Idempotency-Key as well.
   */
  toleranceSeconds?: number;
  now?: Date;
}

export type VerifyResult = { ok: true; payload: WebhookPayload } | { ok: false; reason: string };

export const DEFAULT_TOLERANCE_SECONDS = 300;

function header(headers: WebhookHeaders, name: string): string | undefined | null {
  let found: string | string[] | undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) {
      if (found !== undefined) return null;
      found = value;
    }
  }
  if (Array.isArray(found)) return found.length === 1 ? found[0] : found.length === 0 ? undefined : null;
  return found;
}

export function verifyWebhook(
  rawBody: string | Buffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): VerifyResult {
  const signature = header(headers, "x-signature");
  if (signature === undefined) return { ok: false, reason: "missing X-Signature header" };
  if (signature === null) return { ok: false, reason: "more than one X-Signature header" };
  const match = /^sha256=([0-9a-f]{64})$/.exec(signature.trim());
  if (!match) return { ok: false, reason: "malformed X-Signature header" };

  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody;
  const expected = createHmac("sha256", secret).update(body).digest();
  const given = Buffer.from(match[1] as string, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: "signature mismatch" };
  }

  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (tolerance > 0 && Number.isFinite(tolerance)) {
    const timestamp = header(headers, "x-timestamp");
    if (timestamp === undefined) return { ok: false, reason: "missing X-Timestamp header" };
    if (timestamp === null || !/^\d{1,12}$/.test(timestamp.trim())) {
      return { ok: false, reason: "malformed X-Timestamp header" };
    }
    const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
    if (Math.abs(nowSeconds - Number(timestamp.trim())) > tolerance) {
      return { ok: false, reason: "timestamp outside tolerance" };
    }
  }

  let payload: unknown;
  try {
    payload = JSON.parse(body.toString("utf8"));
  } catch {
    return { ok: false, reason: "body is not valid JSON" };
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return { ok: false, reason: "body is not a JSON object" };
  }
  return { ok: true, payload: payload as WebhookPayload };
}
