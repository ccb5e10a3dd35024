/**
 * Secrets never reach an audit row (DESIGN.md 12): a field whose name says it holds one is replaced
 * by "[redacted]" at any depth. Values are also made plain JSON (bigint and Date as strings), so
 * what is hashed is exactly what jsonb gives back.
 */
export const REDACTED = "[redacted]";

const SECRET_FIELD =
  /secret|password|passwd|token|api_?key(?!_?prefix)|totp_?code|recovery_?code|mnemonic|private_?key|key_?hash|invitation_?url/i;

export function redactSecrets(value: unknown, key = ""): unknown {
  if (key !== "" && SECRET_FIELD.test(key)) return REDACTED;
  if (value === undefined || value === null) return null;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item));
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v !== undefined) out[k] = redactSecrets(v, k);
    }
    return out;
  }
  return value;
}
