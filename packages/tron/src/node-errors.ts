import { hexToBytes } from "./bytes.js";

export type TronNodeErrorKind =
  | "rate_limited"
  | "server"
  | "busy"
  | "timeout"
  | "network"
  | "malformed"
  | "unauthorized"
  | "not_found"
  | "http"
  | "validation"
  | "signature"
  | "tapos"
  | "expired"
  | "duplicate"
  | "bandwidth"
  | "execution"
  | "broadcast";

const RETRYABLE: ReadonlySet<TronNodeErrorKind> = new Set([
  "rate_limited",
  "server",
  "busy",
  "timeout",
  "network",
  "malformed",
]);

export class TronNodeError extends Error {
  override readonly name = "TronNodeError";
  readonly kind: TronNodeErrorKind;
  /** Worth retrying later with backoff (the node or network is at fault, not the request). */
  readonly retryable: boolean;
  readonly status?: number;
  /** java-tron's broadcast code (SIGERROR, DUP_TRANSACTION_ERROR, …) when there is one */
  readonly code?: string;
  readonly path: string;
  /** from Retry-After on 429 */
  readonly retryAfterMs?: number;

  constructor(
    kind: TronNodeErrorKind,
    path: string,
    message: string,
    extra: { status?: number; code?: string; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(`${path}: ${message}`, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.kind = kind;
    this.retryable = RETRYABLE.has(kind);
    this.path = path;
    if (extra.status !== undefined) this.status = extra.status;
    if (extra.code !== undefined) this.code = extra.code;
    if (extra.retryAfterMs !== undefined) this.retryAfterMs = extra.retryAfterMs;
  }
}

/** java-tron's broadcast response codes (Return.response_code) mapped to our kinds. */
export const BROADCAST_CODE_KINDS: Record<string, TronNodeErrorKind> = {
  SIGERROR: "signature",
  BANDWITH_ERROR: "bandwidth",
  DUP_TRANSACTION_ERROR: "duplicate",
  TAPOS_ERROR: "tapos",
  TOO_BIG_TRANSACTION_ERROR: "validation",
  TRANSACTION_EXPIRATION_ERROR: "expired",
  CONTRACT_VALIDATE_ERROR: "validation",
  CONTRACT_EXE_ERROR: "execution",
  SERVER_BUSY: "busy",
  NO_CONNECTION: "busy",
  NOT_ENOUGH_EFFECTIVE_CONNECTION: "busy",
  BLOCK_UNSOLIDIFIED: "busy",
  OTHER_ERROR: "broadcast",
};

/** java-tron sends broadcast messages as hex of UTF-8; anything else is passed through. */
export function decodeNodeMessage(message: unknown): string {
  if (typeof message !== "string") return "";
  if (message.length > 0 && message.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(message)) {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(hexToBytes(message));
    } catch {
      return message;
    }
  }
  return message;
}

export function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const v = Array.isArray(header) ? header[0] : header;
  if (!v) return undefined;
  const seconds = Number(v);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
