/**
 * @stablegate/sdk: the merchant's side of Stablegate. A typed API client (createClient) and webhook
 * receivers for node:http, Express and Fastify. Loads nothing but node built-ins at run time: no
 * database, no server code, no web framework.
 */
export { createClient, type ClientOptions, type StablegateClient } from "./client.js";
export {
  StablegateApiError,
  StablegateError,
  StablegateNetworkError,
  type StablegateErrorCode,
} from "./errors.js";
export { DEFAULT_RETRY, parseRetryAfterMs, type RetryOptions } from "./retry.js";
export type { FetchLike, RetryEvent } from "./transport.js";
export type * from "./types.js";

export { verifyWebhook, DEFAULT_TOLERANCE_SECONDS } from "./verify-webhook.js";
export type { VerifyOptions, VerifyResult, WebhookHeaders } from "./verify-webhook.js";
export {
  createWebhookProcessor,
  DEFAULT_MAX_BODY_BYTES,
  type WebhookDelivery,
  type WebhookHandlerOptions,
  type WebhookProcessor,
  type WebhookReply,
} from "./webhook-handler.js";
export {
  MemoryDedupeStore,
  type ClaimResult,
  type MemoryDedupeStoreOptions,
  type WebhookDedupeStore,
} from "./dedupe-store.js";
export { createNodeWebhookHandler, type NodeWebhookHandler } from "./node-handler.js";
export {
  createExpressWebhookHandler,
  type ExpressLikeRequest,
  type ExpressWebhookHandler,
} from "./express-handler.js";
export {
  createFastifyWebhookHandler,
  fastifyWebhookPlugin,
  type FastifyLikeInstance,
  type FastifyLikeReply,
  type FastifyLikeRequest,
  type FastifyWebhookHandler,
} from "./fastify-plugin.js";
