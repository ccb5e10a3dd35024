/**
 * The one error type of the service. Domain code throws `AppError(code, message)`;
 * the HTTP layer maps the code to a status through `STATUS_BY_CODE` and nothing else.
 * Messages are for humans and must never carry secrets or internals.
 */
export const STATUS_BY_CODE = {
  UNAUTHORIZED: 401,
  MERCHANT_INACTIVE: 403,
  ADMIN_UNAUTHORIZED: 401,
  ADMIN_TOKEN_INVALID: 401,
  INVALID_PASSWORD: 401,
  // Operator accounts (DESIGN.md 12)
  ADMIN_FORBIDDEN: 403,
  TOTP_REQUIRED: 401,
  TOTP_INVALID: 401,
  TOTP_ENROLMENT_REQUIRED: 403,
  // Step-up (DESIGN.md 12): money out needs a second factor; a passkey that does not verify
  SECOND_FACTOR_REQUIRED: 403,
  PASSKEY_INVALID: 401,
  OPERATOR_EXISTS: 409,
  METRICS_UNAUTHORIZED: 401,
  INVALID_BODY: 400,
  INVALID_QUERY: 400,
  VALIDATION_ERROR: 400,
  EMPTY_UPDATE: 400,
  NOT_FOUND: 404,
  INVALID_STATE: 409,
  SWEEP_DISABLED: 409,
  EXTERNAL_ID_CONFLICT: 409,
  // Refunds and payouts (DESIGN.md 14)
  INSUFFICIENT_BALANCE: 409,
  REFUND_EXCEEDS_RECEIVED: 409,
  INVALID_ADDRESS: 400,
  UNSUPPORTED_CURRENCY: 400,
  ADDRESS_NOT_ALLOWED: 400,
  FOUR_EYES_REQUIRED: 403,
  CLAIM_EXPIRED: 410,
  RATE_LIMITED: 429,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
  // Generic codes for requests refused by the framework or the HTTP parser before any domain code
  // runs: they never borrow a domain code that happens to share the status.
  BAD_REQUEST: 400,
  FORBIDDEN: 403,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  URI_TOO_LONG: 414,
  RANGE_NOT_SATISFIABLE: 416,
  EXPECTATION_FAILED: 417,
  HEADERS_TOO_LARGE: 431,
} as const;

export type ErrorCode = keyof typeof STATUS_BY_CODE;

export class AppError extends Error {
  readonly code: ErrorCode;
  /** Seconds, sent as Retry-After with RATE_LIMITED. */
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, options: { retryAfter?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.retryAfter = options.retryAfter;
  }

  get status(): number {
    return STATUS_BY_CODE[this.code];
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** Exhaustiveness guard: a new member of a union fails to compile where it is not handled. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${String(value)}`);
}
