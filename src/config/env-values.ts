/**
 * How one variable's text becomes a value (src/config.ts reads the variables; these parse them), and
 * the error that names the variable. A refused value never echoes a list or a secret back.
 */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = "ConfigError";
  }
}

/** A variable's value, trimmed; undefined when unset or blank. */
export type ReadVariable = (name: string) => string | undefined;

export function integer(
  raw: string | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return value;
}

export function boolean(raw: string | undefined, name: string, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

export function oneOf<T extends string>(raw: string | undefined, name: string, allowed: readonly T[]): T {
  if (raw === undefined) throw new ConfigError(name, `is required; one of ${allowed.join(", ")}`);
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}

export function url(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, "must be an absolute http(s) URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigError(name, "must be an http(s) URL");
  }
  return raw.replace(/\/+$/, "");
}

/** A comma-separated list of http(s) URLs (at least one, no duplicates). */
export function urlList(raw: string | undefined, name: string): string[] | undefined {
  if (raw === undefined) return undefined;
  const list = raw.split(",").map((part) => part.trim());
  if (list.some((part) => part === ""))
    throw new ConfigError(name, "has an empty entry in its comma-separated list");
  const urls = list.map((part) => url(part, name) as string);
  if (new Set(urls).size !== urls.length) throw new ConfigError(name, "lists the same URL twice");
  return urls;
}
