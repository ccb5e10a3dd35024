/**
 * The SDK's errors. Every failure of a client call is a StablegateError; `kind` tells an answer of
 * the API (StablegateApiError: it has a status and the API's code) from no answer at all
 * (StablegateNetworkError: refused connection, reset, DNS failure or timeout), because only the
 * second leaves it open whether the request took effect.
 */
import type { ApiErrorCode } from "./types.js";

/** The API's codes, plus INVALID_RESPONSE for a reply that is not the API's `{error, code}` JSON. */
export type StablegateErrorCode = ApiErrorCode | "INVALID_RESPONSE" | "NETWORK_ERROR" | "TIMEOUT";

export interface StablegateErrorDetails {
  status: number | null;
  code: StablegateErrorCode;
  requestId?: string | null;
  retryAfterSeconds?: number | null;
  attempts?: number;
  cause?: unknown;
}

export class StablegateError extends Error {
  /** HTTP status of the answer; null when none came. */
  readonly status: number | null;
  readonly code: StablegateErrorCode;
  /** The X-Request-Id the API answered with (quote it when reporting a problem). */
  readonly requestId: string | null;
  /** Seconds the API asked to wait (Retry-After on 429 and 503), when it did. */
  readonly retryAfterSeconds: number | null;
  /** How many attempts were made before giving up. */
  readonly attempts: number;

  constructor(message: string, details: StablegateErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "StablegateError";
    this.status = details.status;
    this.code = details.code;
    this.requestId = details.requestId ?? null;
    this.retryAfterSeconds = details.retryAfterSeconds ?? null;
    this.attempts = details.attempts ?? 1;
  }

  get kind(): "api" | "network" {
    return this.status === null ? "network" : "api";
  }
}

/** The API answered with an error status. */
export class StablegateApiError extends StablegateError {
  declare readonly status: number;
  declare readonly code: ApiErrorCode | "INVALID_RESPONSE";

  constructor(
    message: string,
    details: StablegateErrorDetails & { status: number; code: ApiErrorCode | "INVALID_RESPONSE" },
  ) {
    super(message, details);
    this.name = "StablegateApiError";
  }
}

/** No answer: the request may or may not have reached the API. */
export class StablegateNetworkError extends StablegateError {
  declare readonly status: null;
  declare readonly code: "NETWORK_ERROR" | "TIMEOUT";

  constructor(
    message: string,
    details: Omit<StablegateErrorDetails, "status"> & { code: "NETWORK_ERROR" | "TIMEOUT" },
  ) {
    super(message, { ...details, status: null });
    this.name = "StablegateNetworkError";
  }
}
