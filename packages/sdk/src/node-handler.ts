/**
 * The webhook receiver for plain node:http: reads the raw body itself (bounded), then runs the
 * shared processor. Also the base of the Express adapter, whose req and res are node's.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createWebhookProcessor,
  type WebhookHandlerOptions,
  type WebhookProcessor,
  type WebhookReply,
} from "./webhook-handler.js";

export type NodeWebhookHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** `http.createServer(createNodeWebhookHandler({ secret, onEvent }))`, or call it from your router. */
export function createNodeWebhookHandler(options: WebhookHandlerOptions): NodeWebhookHandler {
  const processor = createWebhookProcessor(options);
  return async (req, res) => {
    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      return send(res, { status: 405 as WebhookReply["status"], body: { error: "use POST" } });
    }
    // Never rejects: callers write `void handler(req, res)`, where a rejection would end the process.
    await answerFromStream(processor, req, res).catch(() => {
      if (!res.headersSent) send(res, { status: 500, body: { error: "webhook handler failed" } });
      else res.destroy();
    });
  };
}

export async function answerFromStream(
  processor: WebhookProcessor,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readBody(req, processor.maxBodyBytes);
  if (body === "aborted") return void res.destroy();
  if (body === "too_large") return send(res, { status: 413, body: { error: "body too large" } });
  send(res, await processor(body, req.headers));
}

export function send(res: ServerResponse, reply: WebhookReply): void {
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * The exact bytes of the body; "too_large" once it passes `limit` (the rest is read and dropped),
 * "aborted" when the sender went away before the end.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | "too_large" | "aborted"> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        resolve("too_large");
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    // After "end" these change nothing: a promise settles once.
    req.on("error", () => resolve("aborted"));
    req.on("close", () => resolve("aborted"));
  });
}
