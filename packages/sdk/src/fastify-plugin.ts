/**
 * The webhook receiver for Fastify, typed structurally so the SDK never loads Fastify. Fastify
 * parses JSON bodies before the handler runs, and the signature covers the raw bytes, so the plugin
 * registers, inside its own encapsulated scope only, a parser that keeps application/json bodies
 * as a Buffer. The rest of your app keeps Fastify's JSON parser.
 */
import type { WebhookHeaders } from "./verify-webhook.js";
import {
  createWebhookProcessor,
  type WebhookHandlerOptions,
  type WebhookProcessor,
} from "./webhook-handler.js";

export interface FastifyLikeRequest {
  body: unknown;
  headers: WebhookHeaders;
}

export interface FastifyLikeReply {
  code(statusCode: number): FastifyLikeReply;
  send(payload?: unknown): unknown;
}

export type FastifyWebhookHandler = (
  request: FastifyLikeRequest,
  reply: FastifyLikeReply,
) => Promise<unknown>;

export interface FastifyLikeInstance {
  removeContentTypeParser(contentType: string | string[]): unknown;
  addContentTypeParser(
    contentType: string,
    options: { parseAs: "buffer"; bodyLimit?: number },
    parser: (request: unknown, body: Buffer, done: (error: Error | null, body?: Buffer) => void) => void,
  ): unknown;
  post(path: string, handler: FastifyWebhookHandler): unknown;
}

export const FASTIFY_RAW_BODY_MESSAGE =
  "the webhook body is not a Buffer: register fastifyWebhookPlugin, or give the route's scope a " +
  "content-type parser with parseAs: 'buffer' for application/json";

/**
 * A route handler for a scope where application/json bodies arrive as a Buffer (what
 * fastifyWebhookPlugin sets up; use this one when you register the parser yourself).
 */
export function createFastifyWebhookHandler(options: WebhookHandlerOptions): FastifyWebhookHandler {
  return fastifyHandler(createWebhookProcessor(options));
}

/** `await app.register(fastifyWebhookPlugin({ path: "/stablegate/webhook", secret, onEvent }))` */
export function fastifyWebhookPlugin(
  options: WebhookHandlerOptions & { path: string },
): (instance: FastifyLikeInstance) => Promise<void> {
  const processor = createWebhookProcessor(options);
  return async function stablegateWebhook(instance) {
    instance.removeContentTypeParser("application/json");
    instance.addContentTypeParser(
      "application/json",
      // One byte over the processor's limit, so it answers the 413 itself.
      { parseAs: "buffer", bodyLimit: processor.maxBodyBytes + 1 },
      (_request, body, done) => done(null, body),
    );
    instance.post(options.path, fastifyHandler(processor));
  };
}

function fastifyHandler(processor: WebhookProcessor): FastifyWebhookHandler {
  return async (request, reply) => {
    const body = request.body;
    if (!Buffer.isBuffer(body) && typeof body !== "string") throw new Error(FASTIFY_RAW_BODY_MESSAGE);
    const answer = await processor(body, request.headers);
    return reply.code(answer.status).send(answer.body);
  };
}
