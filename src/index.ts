/**
 * The root package's export (`stablegate`, private, never published): the SDK's webhook verifier and
 * payload types, re-exported. Merchants import them from `@stablegate/sdk`, which installs on its own;
 * the service starts from src/main.ts.
 */
export { verifyWebhook, DEFAULT_TOLERANCE_SECONDS } from "@stablegate/sdk/verify-webhook";
export type {
  VerifyOptions,
  VerifyResult,
  WebhookHeaders,
  WebhookPayload,
} from "@stablegate/sdk/verify-webhook";
export type { OutcomeEvent } from "@stablegate/sdk/webhook-payload";
