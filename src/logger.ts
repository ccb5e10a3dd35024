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
 * Errors are logged with the standard serializer, except database errors: those carry the
 * statement's text and parameters (and PostgreSQL quotes values in its messages), so they are
 * reduced to their SQL state and the statement's name.
 */
export function serializeError(error: unknown): unknown {
  const database = describeDatabaseError(error);
  if (database) return database;
  return error instanceof Error ? pino.stdSerializers.err(error) : error;
}

export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      serializers: { err: serializeError },
      base: { service: "stablegate" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}
