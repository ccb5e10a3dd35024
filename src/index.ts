/**
 * The package entry for merchants' code: the webhook verifier and the payload type. Only what a
 * receiver needs is exported here; the service itself starts from src/main.ts.
 */
export { verifyWebhook, DEFAULT_TOLERANCE_SECONDS } from "@stablegate/sdk/verify-webhook";
export type {
  VerifyOptions,
  VerifyResult,
  WebhookHeaders,
  WebhookPayload,
} from "@stablegate/sdk/verify-webhook";
export type { OutcomeEvent } from "@stablegate/sdk/webhook-payload";
