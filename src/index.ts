/**
 * The package entry for merchants' code: the webhook verifier and the payload type. Only what a
 * receiver needs is exported here; the service itself starts from src/main.ts.
 */
export { verifyWebhook, DEFAULT_TOLERANCE_SECONDS } from "./webhooks/verify-webhook.js";
export type {
  VerifyOptions,
  VerifyResult,
  WebhookHeaders,
  WebhookPayload,
} from "./webhooks/verify-webhook.js";
export type { OutcomeEvent } from "./webhooks/webhook-payload.js";
