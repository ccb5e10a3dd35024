/**
 * The OpenAPI 3.1 document (built by @fastify/swagger from the routes' zod schemas) at
 * /api/v1/openapi.json, and the API reference page rendered from it (Swagger UI) at /api/v1/docs.
 *
 * Each route declares the responses of its own logic. `completeOperations` then adds what every
 * route can answer before or around that logic (malformed requests refused by the HTTP layer, body
 * problems on routes that take a body, 500/503), names the error codes each status can carry, and
 * gives every operation an id, so the document lists every status a route can answer.
 */
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import { STATUS_BY_CODE, type ErrorCode } from "../errors.js";
import type { App } from "./app.js";
import { webhooksDocument } from "./schemas/webhook-event.js";

export const OPENAPI_PATH = "/api/v1/openapi.json";
export const DOCS_PATH = "/api/v1/docs";

type Json = Record<string, unknown>;

/**
 * Codes any route may answer, whatever it does: the HTTP layer refuses the request first. The input
 * rule (src/http/input-rule.ts) reads the query string of every route, so a route that declares no
 * query still answers INVALID_QUERY to a NUL or an unpaired surrogate in one.
 */
const ANY_ROUTE: ErrorCode[] = [
  "BAD_REQUEST",
  "INVALID_QUERY",
  "URI_TOO_LONG",
  "EXPECTATION_FAILED",
  "HEADERS_TOO_LARGE",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
];
/** Codes of routes with path parameters (a parameter breaking the input rule is 404). */
const WITH_PARAMS: ErrorCode[] = ["NOT_FOUND"];
/**
 * Codes of the body parser. Fastify reads the body of every POST, PUT, PATCH and DELETE that carries
 * one, so a route that takes none (rotate-api-key, logout, retry-sweep, revoking a session) still
 * refuses a non-JSON, oversized or broken one.
 */
const WITH_BODY: ErrorCode[] = ["INVALID_BODY", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"];
const PARSES_BODY = new Set(["post", "put", "patch", "delete"]);
/** Codes by security scheme. */
const BY_SCHEME: Record<string, ErrorCode[]> = {
  apiKey: ["UNAUTHORIZED", "MERCHANT_INACTIVE", "RATE_LIMITED"],
  // Every admin route names a permission (403 for a role without it) and, under ADMIN_REQUIRE_2FA,
  // keeps an operator without TOTP to enrolment (DESIGN.md 12).
  adminCookie: ["ADMIN_UNAUTHORIZED", "ADMIN_TOKEN_INVALID", "ADMIN_FORBIDDEN", "TOTP_ENROLMENT_REQUIRED"],
};
/** A step-up: no factor, a wrong one, or a locked second factor (DESIGN.md 12). */
const STEP_UP: ErrorCode[] = ["TOTP_REQUIRED", "TOTP_INVALID", "PASSKEY_INVALID", "RATE_LIMITED"];
/** Changing one's second factors: the current password, then a step-up. */
const REAUTH: ErrorCode[] = ["INVALID_PASSWORD", "INVALID_STATE", ...STEP_UP];
/** Codes a route's own logic answers, by operation (method and path). */
const BY_OPERATION: Record<string, ErrorCode[]> = {
  "post /api/v1/payments": ["VALIDATION_ERROR", "UNSUPPORTED_CURRENCY", "EXTERNAL_ID_CONFLICT"],
  "post /api/v1/deposit-addresses": ["UNSUPPORTED_CURRENCY"],
  "post /api/v1/admin/auth/login": ["INVALID_PASSWORD", "VALIDATION_ERROR", ...STEP_UP],
  "post /api/v1/admin/auth/accept-invitation": ["NOT_FOUND"],
  "post /api/v1/admin/merchants/{id}/rotate-api-key": STEP_UP,
  "post /api/v1/admin/operators": ["OPERATOR_EXISTS", ...STEP_UP],
  "put /api/v1/admin/operators/{id}": ["EMPTY_UPDATE", "INVALID_STATE", ...STEP_UP],
  "post /api/v1/admin/operators/{id}/reset-2fa": REAUTH,
  "post /api/v1/admin/operators/{id}/unlock-second-factor": ["INVALID_STATE", ...STEP_UP],
  "post /api/v1/admin/me/password": ["INVALID_PASSWORD", "INVALID_STATE"],
  "post /api/v1/admin/me/totp/setup": REAUTH,
  "post /api/v1/admin/me/totp/confirm": ["INVALID_STATE", "TOTP_INVALID"],
  "post /api/v1/admin/me/totp/disable": REAUTH,
  "post /api/v1/admin/me/recovery-codes": REAUTH,
  "post /api/v1/admin/me/passkeys/registration-options": REAUTH,
  "post /api/v1/admin/me/passkeys": ["PASSKEY_INVALID"],
  "delete /api/v1/admin/me/passkeys/{id}": ["INVALID_STATE", ...STEP_UP],
  "post /api/v1/admin/merchants": ["VALIDATION_ERROR"],
  "put /api/v1/admin/merchants/{id}": ["VALIDATION_ERROR", "EMPTY_UPDATE", "INVALID_STATE", ...STEP_UP],
  "post /api/v1/admin/orders/{id}/retry-webhook": ["VALIDATION_ERROR", "INVALID_STATE"],
  "post /api/v1/admin/orders/{id}/retry-sweep": ["INVALID_STATE", "SWEEP_DISABLED"],
  "post /api/v1/admin/stray-transfers/{id}/retry-sweep": ["INVALID_STATE", "SWEEP_DISABLED"],
  "post /api/v1/payments/{id}/simulate": ["VALIDATION_ERROR"],
  "post /api/v1/admin/orders/{id}/simulate": ["VALIDATION_ERROR"],
  "post /api/v1/payouts": [
    "VALIDATION_ERROR",
    "INVALID_ADDRESS",
    "ADDRESS_NOT_ALLOWED",
    "UNSUPPORTED_CURRENCY",
    "EXTERNAL_ID_CONFLICT",
    "INSUFFICIENT_BALANCE",
  ],
  "get /api/v1/payouts": ["INVALID_QUERY", "VALIDATION_ERROR"],
  "post /api/v1/payments/{id}/refunds": [
    "VALIDATION_ERROR",
    "INVALID_ADDRESS",
    "ADDRESS_NOT_ALLOWED",
    "UNSUPPORTED_CURRENCY",
    "REFUND_EXCEEDS_RECEIVED",
    "INSUFFICIENT_BALANCE",
  ],
  "post /api/v1/admin/orders/{id}/refunds": [
    "VALIDATION_ERROR",
    "INVALID_ADDRESS",
    "ADDRESS_NOT_ALLOWED",
    "UNSUPPORTED_CURRENCY",
    "REFUND_EXCEEDS_RECEIVED",
    "INSUFFICIENT_BALANCE",
  ],
  "post /api/v1/admin/stray-transfers/{id}/refunds": [
    "VALIDATION_ERROR",
    "INVALID_ADDRESS",
    "ADDRESS_NOT_ALLOWED",
    "UNSUPPORTED_CURRENCY",
    "REFUND_EXCEEDS_RECEIVED",
    "INVALID_STATE",
  ],
  "get /api/v1/admin/payouts": ["INVALID_QUERY", "VALIDATION_ERROR"],
  "post /api/v1/admin/payouts/{id}/approve": [
    "INVALID_STATE",
    "FOUR_EYES_REQUIRED",
    "VALIDATION_ERROR",
    "SECOND_FACTOR_REQUIRED",
    ...STEP_UP,
  ],
  "post /api/v1/admin/payouts/{id}/reject": [
    "INVALID_STATE",
    "VALIDATION_ERROR",
    "SECOND_FACTOR_REQUIRED",
    ...STEP_UP,
  ],
  "post /api/v1/admin/payouts/{id}/cancel": ["INVALID_STATE", "VALIDATION_ERROR"],
  "post /api/v1/admin/payouts/{id}/retry-webhook": ["INVALID_STATE"],
  "post /api/v1/admin/payouts/{id}/claim-link": ["INVALID_STATE"],
  "post /api/v1/refund-claims/{token}": [
    "VALIDATION_ERROR",
    "INVALID_ADDRESS",
    "ADDRESS_NOT_ALLOWED",
    "UNSUPPORTED_CURRENCY",
    "INVALID_STATE",
    "CLAIM_EXPIRED",
  ],
};

const SUMMARIES: Record<string, string> = {
  "get /api/v1/health": "Readiness: database, chain node and scanner (503 while not ready)",
  "get /api/v1/health/live": "Liveness: the process answers",
};

const ERROR_SCHEMA_REF = { $ref: "#/components/schemas/Error" };

function errorResponse(codes: ErrorCode[]): Json {
  return {
    description: `Error. code: ${codes.join(", ")}`,
    content: {
      "application/json": {
        schema: {
          allOf: [
            ERROR_SCHEMA_REF,
            { type: "object", properties: { code: { type: "string", enum: codes } } },
          ],
        },
        example: { error: "a human-readable message", code: codes[0] },
      },
    },
  };
}

function isErrorShape(response: Json): boolean {
  const content = response.content as Record<string, { schema?: Json }> | undefined;
  const properties = content?.["application/json"]?.schema?.properties as Json | undefined;
  return properties !== undefined && "error" in properties && "code" in properties;
}

function operationId(method: string, path: string): string {
  const words = path
    .replace(/^\/api\/v1\//, "")
    .split(/[/{}-]+/)
    .filter(Boolean);
  return [method, ...words].map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join("");
}

/** Adds the statuses every route can answer and names the codes of every error status. */
export function completeOperations(doc: Json): Json {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  const components = (doc.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Json;
  schemas.Error = {
    type: "object",
    required: ["error", "code"],
    properties: {
      error: { type: "string", description: "a human-readable message; never internals or secrets" },
      code: { type: "string", enum: Object.keys(STATUS_BY_CODE) },
    },
    description: "The one error shape of the service (SPEC.md 7).",
  };
  components.schemas = schemas;
  doc.components = components;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      // Every admin route but login and logout sits behind the session (the admin scope's plugin); the rest
      // of the undeclared ones are public.
      operation.security ??=
        path.startsWith("/api/v1/admin/") && !path.startsWith("/api/v1/admin/auth/")
          ? [{ adminCookie: [] }]
          : [];
      operation.summary ??= SUMMARIES[`${method} ${path}`];
      const codes = new Set<ErrorCode>(ANY_ROUTE);
      const parameters = (operation.parameters ?? []) as { in?: string }[];
      if (parameters.some((p) => p.in === "path")) WITH_PARAMS.forEach((c) => codes.add(c));
      if (operation.requestBody || PARSES_BODY.has(method)) WITH_BODY.forEach((c) => codes.add(c));
      for (const requirement of (operation.security ?? []) as Json[]) {
        for (const scheme of Object.keys(requirement)) (BY_SCHEME[scheme] ?? []).forEach((c) => codes.add(c));
      }
      (BY_OPERATION[`${method} ${path}`] ?? []).forEach((c) => codes.add(c));
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      const byStatus = new Map<number, ErrorCode[]>();
      for (const code of codes) {
        const status = STATUS_BY_CODE[code];
        byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
      }
      for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
        const declared = responses[String(status)];
        // A route's own non-error reply at that status (health's 503) stays as declared.
        if (declared && !isErrorShape(declared)) continue;
        responses[String(status)] = errorResponse(list);
      }
      operation.responses = responses;
      operation.operationId ??= operationId(method, path);
    }
  }
  return doc;
}

/** Registers the document generator; call before the routes so it sees them all. */
export async function registerOpenApi(app: App): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Stablegate API",
        version: "1.0.0",
        description:
          "Self-hosted USDT (TRC20) payment gateway. Merchants authenticate with the X-API-Key header; " +
          "the operator's admin API uses the admin_token session cookie set by /api/v1/admin/auth/login. " +
          "Every error answers { error, code }. Amounts are decimal strings with 6 decimals.",
        license: { name: "MIT", identifier: "MIT" },
      },
      servers: [{ url: "/", description: "this deployment" }],
      tags: [
        { name: "merchant", description: "The merchant API (X-API-Key)" },
        { name: "sandbox", description: "Devnet-only helpers: pay an order from the devnet faucet" },
        { name: "admin", description: "The operator's API (admin_token cookie)" },
        { name: "public", description: "Health and the hosted checkout page's status" },
        { name: "webhooks", description: "Requests Stablegate sends to the merchant's callback_url" },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: "apiKey",
            in: "header",
            name: "X-API-Key",
            description: "The merchant's API key (shown once, when created or rotated)",
          },
          adminCookie: {
            type: "apiKey",
            in: "cookie",
            name: "admin_token",
            description: "The admin session, set by POST /api/v1/admin/auth/login",
          },
        },
      },
      webhooks: webhooksDocument() as never,
    },
    transform: jsonSchemaTransform,
    transformObject: (documentObject) =>
      completeOperations((documentObject as { openapiObject: Json }).openapiObject) as never,
  });
}

/** The JSON document and the reference page; call after the routes. */
export async function registerApiReference(app: App): Promise<void> {
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  await app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PATH,
    uiConfig: { docExpansion: "list", deepLinking: true, defaultModelsExpandDepth: 0 },
  });
}
