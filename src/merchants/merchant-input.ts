/**
 * Field rules of a merchant (SPEC.md 2.1), shared by the domain functions and the HTTP schemas.
 * Lengths count Unicode code points, as PostgreSQL's char_length does, so the database CHECK and
 * these rules always agree.
 */
import { AppError } from "../errors.js";

export const NAME_MIN = 1;
export const NAME_MAX = 255;
export const WEBHOOK_SECRET_MIN = 8;
export const WEBHOOK_SECRET_MAX = 255;

// NUL cannot be stored in a PostgreSQL text column; other C0 controls have no place in a name.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
// A lone UTF-16 surrogate cannot be encoded as UTF-8; the driver would silently replace it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function codePointLength(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}

/** A human message naming the problem, or undefined when the name is acceptable. */
export function nameProblem(name: string): string | undefined {
  const length = codePointLength(name);
  if (length < NAME_MIN || length > NAME_MAX) {
    return `must be ${NAME_MIN} to ${NAME_MAX} characters (got ${length})`;
  }
  if (name.trim() === "") return "must not be blank";
  if (LONE_SURROGATE.test(name)) return "must be valid Unicode text";
  if (CONTROL_CHARS.test(name)) return "must not contain control characters";
  return undefined;
}

export function webhookSecretProblem(secret: string): string | undefined {
  const length = codePointLength(secret);
  if (length < WEBHOOK_SECRET_MIN || length > WEBHOOK_SECRET_MAX) {
    return `must be ${WEBHOOK_SECRET_MIN} to ${WEBHOOK_SECRET_MAX} characters (got ${length})`;
  }
  if (LONE_SURROGATE.test(secret)) return "must be valid Unicode text";
  if (secret.includes("\u0000")) return "must not contain NUL characters";
  return undefined;
}

/** Domain-level guard for callers that bypass the HTTP schemas (other modules, tests). */
export function assertMerchantFields(fields: { name?: string; webhookSecret?: string }): void {
  if (fields.name !== undefined) {
    const problem = nameProblem(fields.name);
    if (problem) throw new AppError("INVALID_BODY", `name ${problem}`);
  }
  if (fields.webhookSecret !== undefined) {
    const problem = webhookSecretProblem(fields.webhookSecret);
    if (problem) throw new AppError("INVALID_BODY", `webhook_secret ${problem}`);
  }
}
