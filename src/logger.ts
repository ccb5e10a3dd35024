/**
 * pino with redaction of every secret the service handles. Redaction is the second line of defence:
 * code logs ids and fixed phrases, never request bodies or headers.
 */
import { pino, type DestinationStream, type Logger } from "pino";
import { describeDatabaseError } from "./db/database-error.js";

export type { Logger };

const SECRET_KEYS = [
  "password",
  "admin_password",
  "adminPassword",
  "api_key",
  "apiKey",
  "webhook_secret",
  "webhookSecret",
  "secret",
  "mnemonic",
  "walletMnemonic",
  "privateKey",
  "private_key",
  "hotWalletPrivateKey",
  "sessionSecret",
  "apiKeyPepper",
  "token",
  "admin_token",
  "telegramBotToken",
];

export const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
  ...SECRET_KEYS.map((key) => `*.*.${key}`),
  'req.headers["x-api-key"]',
  "req.headers.cookie",
  "req.headers.authorization",
  'res.headers["set-cookie"]',
  'headers["x-api-key"]',
  "headers.cookie",
  "headers.authorization",
  'headers["set-cookie"]',
];

/**
 * Every path that carries a secret in a segment (a refund's claim token is the credential of the
 * payer's page and its API): the prefix up to the secret, then the secret's characters. Request
 * logs (Fastify's `req.url`, error messages and stacks, any message text) show the secret as
 * `[redacted]`. A new route with a secret in its path is added HERE; test/logs/secret-paths.test.ts
 * fails for a registered route whose `:token`-like parameter this list does not cover.
 */
export const SECRET_PATH_PATTERNS: readonly RegExp[] = [
  /(\/refund\/)[^/?#\s"']+/g,
  /(\/api\/v1\/refund-claims\/)[^/?#\s"']+/g,
];

/** `text` with the secret of every SECRET_PATH_PATTERNS match replaced by `[redacted]`. */
export function redactSecretPaths(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATH_PATTERNS) out = out.replace(pattern, "$1[redacted]");
  return out;
}

/** Fastify's request serializer (method, url, host, remote address and port), url redacted. */
function serializeRequest(req: {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}): Record<string, unknown> {
  return {
    method: req.method,
    url: typeof req.url === "string" ? redactSecretPaths(req.url) : req.url,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * Errors are logged with the standard serializer, except database errors: those carry the
 * statement's text and parameters (and PostgreSQL quotes values in its messages), so they are
 * reduced to their SQL state and the statement's name.
 */
export function serializeError(error: unknown): unknown {
  const database = describeDatabaseError(error);
  if (database) return database;
  if (!(error instanceof Error)) return error;
  const serialized = pino.stdSerializers.err(error);
  serialized.message = redactSecretPaths(serialized.message);
  if (typeof serialized.stack === "string") serialized.stack = redactSecretPaths(serialized.stack);
  return serialized;
}

export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      serializers: { err: serializeError, req: serializeRequest },
      // Message texts (Fastify's own warnings quote a request's URL) lose path secrets too.
      hooks: {
        logMethod(args, method) {
          for (let i = 0; i < args.length; i++) {
            const arg: unknown = args[i];
            if (typeof arg === "string") args[i] = redactSecretPaths(arg);
          }
          method.apply(this, args);
        },
      },
      base: { service: "stablegate" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}

/**
 * A request's logger (Fastify's childLoggerFactory): `parent.child(bindings)` made when the request
 * first logs a line its level lets through. pino serializes and redacts a child's bindings when the
 * child is made (about 9 µs, as much as a tenth of an order creation), and most requests log
 * nothing at the service's level. The lines it logs are the child's, bindings (reqId) included.
 */
export function lazyChildLogger(
  parent: Logger,
  bindings: Record<string, unknown>,
  options?: { level?: string },
): Logger {
  // A child at a level of its own (a route's logLevel) decides what it logs itself: made at once.
  if (options?.level !== undefined && options.level !== parent.level) return parent.child(bindings, options);
  return new LazyChildLogger(parent, bindings, options) as unknown as Logger;
}

type LogMethod = (...args: unknown[]) => void;

class LazyChildLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly childBindings: Record<string, unknown>,
    private readonly options: object | undefined,
  ) {}

  private real(): Logger {
    return (this.made ??= this.parent.child(this.childBindings, this.options));
  }

  private write(level: "fatal" | "error" | "warn" | "info" | "debug" | "trace", args: unknown[]): void {
    if (!(this.made ?? this.parent).isLevelEnabled(level)) return;
    (this.real()[level] as LogMethod)(...args);
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: Record<string, unknown>, options?: object): Logger {
    return this.real().child(bindings, options);
  }

  bindings(): Record<string, unknown> {
    return this.real().bindings();
  }

  flush(cb?: (error?: Error) => void): void {
    (this.made ?? this.parent).flush(cb);
  }

  silent(): void {}

  fatal(...args: unknown[]): void {
    this.write("fatal", args);
  }

  error(...args: unknown[]): void {
    this.write("error", args);
  }

  warn(...args: unknown[]): void {
    this.write("warn", args);
  }

  info(...args: unknown[]): void {
    this.write("info", args);
  }

  debug(...args: unknown[]): void {
    this.write("debug", args);
  }

  trace(...args: unknown[]): void {
    this.write("trace", args);
  }
}
