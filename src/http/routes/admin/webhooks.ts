/**
 * POST /api/v1/admin/orders/:id/retry-webhook (SPEC.md 4.4, DESIGN.md 6). Registered inside the admin
 * session scope. Checks run body -> existence -> state; the body checks that need no database run
 * here, the rest in retryOrderWebhook.
 */
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Context } from "../../../context.js";
import { AppError } from "../../../errors.js";
import { retryOrderWebhook } from "../../../webhooks/retry-order-webhook.js";
import { retryWebhookSchema } from "../../schemas/retry-webhook.js";
import { auditOriginOf } from "../../audit-context.js";

/** The override from a raw body: undefined when absent; VALIDATION_ERROR when malformed. */
function overrideFrom(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== "object" || Array.isArray(body)) {
    throw new AppError("VALIDATION_ERROR", "request body must be a JSON object");
  }
  const fields = body as Record<string, unknown>;
  const [key, value] =
    fields.callback_url !== undefined
      ? ["callback_url", fields.callback_url]
      : ["callbackUrl", fields.callbackUrl];
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new AppError("VALIDATION_ERROR", `${key} must be a string`);
  return value;
}

export const adminWebhookRoutes: FastifyPluginAsyncZod<{ ctx: Context }> = async (app) => {
  app.post(
    "/api/v1/admin/orders/:id/retry-webhook",
    { schema: retryWebhookSchema, attachValidation: true, config: { permission: "orders.retry_webhook" } },
    async (request) => {
      const callbackUrl = overrideFrom(request.body);
      await retryOrderWebhook(request.ctx, request.params.id, { callbackUrl }, auditOriginOf(request));
      return { ok: true as const };
    },
  );
};
