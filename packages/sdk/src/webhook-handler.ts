/**
 * The framework-free core of the webhook receivers: raw body and headers in, a status and a small
 * JSON body out. Verifies the signature over the raw bytes and the timestamp (verifyWebhook),
 * dedupes on X-Idempotency-Key through the store, and runs the merchant's handler at most once per
 * successfully processed event. The node:http, Express and Fastify adapters only move bytes.
 */
import { verifyWebhook, type WebhookHeaders } from "./verify-webhook.js";
import { MemoryDedupeStore, type WebhookDedupeStore } from "./dedupe-store.js";
import type { WebhookEvent } from "./types.js";

export interface WebhookDelivery {
  /** X-Idempotency-Key: the same on every retry of this event. */
  idempotencyKey: string;
  /** X-Timestamp: Unix seconds of this attempt. */
  timestamp: number;
  headers: WebhookHeaders;
}

export interface WebhookHandlerOptions {
  /** The merchant's webhook_secret. */
  secret: string;
  /** Your code. Throw (or reject) to have Stablegate deliver the event again later. */
  onEvent: (event: WebhookEvent, delivery: WebhookDelivery) => void | Promise<void>;
  /** Where processed keys are remembered (default: a MemoryDedupeStore of this handler). */
  store?: WebhookDedupeStore;
  /** Refuse an X-Timestamp further than this from now (default 300 s; 0 turns it off). */
  toleranceSeconds?: number;
  /** Bodies larger than this are refused with 413 (default 64 KB; payloads are under 1 KB). */
  maxBodyBytes?: number;
  /** Told about a handler or store failure (default: console.error). Never told about secrets. */
  onError?: (error: unknown, delivery: WebhookDelivery) => void;
  now?: () => Date;
}

export interface WebhookReply {
  status: 200 | 400 | 409 | 413 | 500;
  body: { ok: true; duplicate?: true } | { error: string };
}

export type WebhookProcessor = ((
  rawBody: Buffer | string,
  headers: WebhookHeaders,
) => Promise<WebhookReply>) & {
  readonly maxBodyBytes: number;
};

export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
const PAYMENT_EVENTS = new Set<string>(["payment.confirmed", "payment.underpaid", "payment.overpaid"]);
const DEPOSIT_EVENTS = new Set<string>(["deposit.detected", "deposit.confirmed"]);
const PAYOUT_EVENTS = new Set<string>([
  "refund.completed",
  "refund.failed",
  "payout.completed",
  "payout.failed",
]);

/** One processor per endpoint: it owns the default store, so create it once, not per request. */
export function createWebhookProcessor(options: WebhookHandlerOptions): WebhookProcessor {
  if (!options.secret) throw new TypeError("secret (the merchant's webhook_secret) is required");
  const store = options.store ?? new MemoryDedupeStore();
  const report =
    options.onError ?? ((error: unknown) => console.error("stablegate webhook: handler failed", error));
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const handle = async (rawBody: Buffer | string, headers: WebhookHeaders): Promise<WebhookReply> => {
    if (Buffer.byteLength(rawBody) > maxBodyBytes) return refuse(413, "body too large");
    const verified = verifyWebhook(rawBody, headers, options.secret, {
      ...(options.toleranceSeconds === undefined ? {} : { toleranceSeconds: options.toleranceSeconds }),
      ...(options.now ? { now: options.now() } : {}),
    });
    if (!verified.ok) return refuse(400, verified.reason);
    const idempotencyKey = single(headers, "x-idempotency-key");
    if (!idempotencyKey) return refuse(400, "missing X-Idempotency-Key header");
    const event = verified.payload as unknown;
    if (!isWebhookEvent(event))
      return refuse(400, "not a Stablegate payment, deposit, refund or payout event");
    const delivery: WebhookDelivery = {
      idempotencyKey,
      timestamp: Number(single(headers, "x-timestamp")),
      headers,
    };

    let claim;
    try {
      claim = await store.claim(idempotencyKey);
    } catch (error) {
      report(error, delivery);
      return refuse(500, "dedupe store failed");
    }
    if (claim === "processed") return { status: 200, body: { ok: true, duplicate: true } };
    if (claim === "in_progress") return refuse(409, "this event is being processed; retry later");
    try {
      await options.onEvent(event, delivery);
    } catch (error) {
      report(error, delivery);
      await Promise.resolve()
        .then(() => store.release(idempotencyKey))
        .catch((releaseError: unknown) => report(releaseError, delivery));
      // The handler's message may hold internals: Stablegate records the reply, so say nothing more.
      return refuse(500, "handler failed");
    }
    try {
      await store.complete(idempotencyKey);
    } catch (error) {
      // The effect happened; a redelivery may run it again, which is the at-least-once promise.
      report(error, delivery);
    }
    return { status: 200, body: { ok: true } };
  };
  return Object.assign(handle, { maxBodyBytes });
}

function refuse(status: WebhookReply["status"], error: string): WebhookReply {
  return { status, body: { error } };
}

function single(headers: WebhookHeaders, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    const text = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
    return text?.trim() || undefined;
  }
  return undefined;
}

function isWebhookEvent(value: unknown): value is WebhookEvent {
  if (typeof value !== "object" || value === null) return false;
  const event = value as Record<string, unknown>;
  if (typeof event.event !== "string") return false;
  if (DEPOSIT_EVENTS.has(event.event)) {
    return (
      typeof event.deposit_id === "string" &&
      typeof event.deposit_address_id === "string" &&
      typeof event.customer_ref === "string" &&
      typeof event.amount === "string" &&
      typeof event.status === "string"
    );
  }
  if (PAYOUT_EVENTS.has(event.event)) {
    return (
      typeof event.payout_id === "string" &&
      (event.kind === "refund" || event.kind === "payout") &&
      event.event.startsWith(`${event.kind}.`) &&
      typeof event.amount === "string" &&
      typeof event.status === "string"
    );
  }
  return (
    PAYMENT_EVENTS.has(event.event) &&
    typeof event.order_id === "string" &&
    typeof event.amount_expected === "string" &&
    typeof event.amount_received === "string" &&
    typeof event.status === "string"
  );
}
