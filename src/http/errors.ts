/**
 * Every reply that is not a success is { error, code } with the status of STATUS_BY_CODE.
 * Framework errors (bad JSON, body too large, wrong media type, schema failures) are translated
 * here; anything unexpected becomes 500 INTERNAL_ERROR without internals.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import type { App } from "./app.js";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { AppError, type ErrorCode } from "../errors.js";
import {
  DATABASE_RETRY_AFTER_SECONDS,
  describeDatabaseError,
  isDatabaseUnavailable,
} from "../db/database-error.js";

export interface ErrorBody {
  error: string;
  code: ErrorCode;
}

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  if (error.retryAfter !== undefined) reply.header("Retry-After", String(error.retryAfter));
  return reply.status(error.status).send({ error: error.message, code: error.code } satisfies ErrorBody);
}

/** "body.amount: Invalid input" -> names the field so a developer can fix the request. */
function describeValidation(error: FastifyError, request: FastifyRequest): AppError {
  const where = error.validationContext ?? "body";
  const code: ErrorCode = where === "querystring" ? "INVALID_QUERY" : "INVALID_BODY";
  if (hasZodFastifySchemaValidationErrors(error)) {
    const first = error.validation[0];
    const path = first?.instancePath?.replace(/^\//, "").replace(/\//g, ".") ?? "";
    const field = path === "" ? where : `${where === "querystring" ? "query" : where}.${path}`;
    const message = first?.message ?? "is invalid";
    return new AppError(code, `${field}: ${message}`);
  }
  void request;
  return new AppError(code, error.message);
}

/**
 * A 4xx raised by the framework or a plugin (static files, cookies, the router) gets a generic code
 * for its status: a domain code such as MERCHANT_INACTIVE only ever comes from the code path that
 * means it (STYLE.md 12).
 */
const GENERIC_CLIENT_ERRORS: Readonly<Record<number, [ErrorCode, string]>> = {
  403: ["FORBIDDEN", "access to this resource is forbidden"],
  404: ["NOT_FOUND", "resource not found"],
  405: ["METHOD_NOT_ALLOWED", "method not allowed"],
  408: ["REQUEST_TIMEOUT", "request timed out"],
  414: ["URI_TOO_LONG", "request URI is too long"],
  416: ["RANGE_NOT_SATISFIABLE", "requested range not satisfiable"],
  417: ["EXPECTATION_FAILED", "expectation not supported"],
  431: ["HEADERS_TOO_LARGE", "request headers are too large"],
};

export function genericClientError(status: number): AppError {
  const [code, message] = GENERIC_CLIENT_ERRORS[status] ?? ["BAD_REQUEST", "request could not be processed"];
  return new AppError(code, message);
}

export function toAppError(error: FastifyError, request: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) return describeValidation(error, request);
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new AppError("UNSUPPORTED_MEDIA_TYPE", "content-type must be application/json");
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new AppError("PAYLOAD_TOO_LARGE", "request body is too large");
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
    case "FST_ERR_CTP_INVALID_JSON_BODY":
      return new AppError("INVALID_BODY", "request body is not valid JSON");
    default:
      break;
  }
  if (error.statusCode === 413) return new AppError("PAYLOAD_TOO_LARGE", "request body is too large");
  if (error.statusCode === 415)
    return new AppError("UNSUPPORTED_MEDIA_TYPE", "content-type must be application/json");
  if (error.statusCode === 400 && error instanceof SyntaxError) {
    return new AppError("INVALID_BODY", "request body is not valid JSON");
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return genericClientError(error.statusCode);
  }
  if (isDatabaseUnavailable(error)) {
    return new AppError("SERVICE_UNAVAILABLE", "service temporarily unavailable, retry shortly", {
      retryAfter: DATABASE_RETRY_AFTER_SECONDS,
    });
  }
  return new AppError("INTERNAL_ERROR", "internal error");
}

export function registerErrorHandling(app: App): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error, request);
    if (appError.code === "SERVICE_UNAVAILABLE" && !(error instanceof AppError)) {
      // A database outage: one line per refused request, without the driver's stack.
      request.log.warn(
        { code: appError.code, status: appError.status, err: describeDatabaseError(error) ?? undefined },
        "request refused: database unavailable",
      );
    } else if (appError.status >= 500) {
      request.log.error({ err: error }, "request failed");
    } else {
      request.log.info({ code: appError.code, status: appError.status }, "request refused");
    }
    return sendError(reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      new AppError(
        "NOT_FOUND",
        `route ${request.method} ${(request.url.split("?")[0] ?? "").slice(0, 200)} not found`,
      ),
    ),
  );
}
