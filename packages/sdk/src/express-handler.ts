/**
 * The webhook receiver for Express (4 or 5), typed structurally so the SDK never loads Express.
 * Works behind `express.raw({ type: "application/json" })` (req.body is the raw Buffer) and with no
 * body parser on the route (it reads the stream itself). A route whose body was already parsed
 * into an object (express.json()) cannot be verified: the exact bytes are gone, so it fails loudly.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { answerFromStream, send } from "./node-handler.js";
import { createWebhookProcessor, type WebhookHandlerOptions } from "./webhook-handler.js";

export type ExpressLikeRequest = IncomingMessage & { body?: unknown };
export type ExpressWebhookHandler = (
  req: ExpressLikeRequest,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => Promise<void>;

export const PARSED_BODY_MESSAGE =
  "the webhook body was already parsed (express.json()?): mount the Stablegate handler before any " +
  "JSON parser, or with express.raw({ type: 'application/json' }), so it can verify the raw bytes";

/** `app.post("/stablegate/webhook", express.raw({ type: "application/json" }), createExpressWebhookHandler(...))` */
export function createExpressWebhookHandler(options: WebhookHandlerOptions): ExpressWebhookHandler {
  const processor = createWebhookProcessor(options);
  return async (req, res, next) => {
    try {
      const body = req.body;
      if (Buffer.isBuffer(body) || typeof body === "string") {
        send(res, await processor(body, req.headers));
      } else if (!req.readableEnded && (body === undefined || isEmptyObject(body))) {
        // No parser consumed the stream (Express 4 leaves {} there, Express 5 undefined).
        await answerFromStream(processor, req, res);
      } else {
        throw new Error(PARSED_BODY_MESSAGE);
      }
    } catch (error) {
      if (next) next(error);
      else send(res, { status: 500, body: { error: "webhook handler misconfigured" } });
    }
  };
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length === 0;
}
