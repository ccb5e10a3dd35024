/**
 * The one rule every string that enters the service obeys, whatever route or field carries it:
 * no NUL (PostgreSQL text and jsonb cannot hold it) and no lone UTF-16 surrogate (not a character;
 * jsonb refuses it too). It is applied to the whole parsed body (keys and values at any depth), the
 * query string and the path parameters before any route's schema runs, so a new field or a new
 * route cannot forget it. Nesting is bounded as well: PostgreSQL parses jsonb recursively.
 */

export const MAX_NESTING_DEPTH = 32;

export interface InputViolation {
  /** Dotted path of the offending value or key, e.g. "metadata.a.b" or "metadata[k]". */
  path: string;
  reason: string;
}

const BAD_CHARACTER = "must not contain NUL or unpaired surrogate characters";

// A high surrogate not followed by a low one, or a low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function isCleanString(value: string): boolean {
  return !value.includes("\u0000") && !LONE_SURROGATE.test(value);
}

function childPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  const printable = isCleanString(key) && /^[A-Za-z0-9_$-]{1,64}$/.test(key);
  const name = printable ? key : JSON.stringify(key.slice(0, 32).replaceAll("\u0000", "\\0")).slice(1, -1);
  return parent === "" ? name : `${parent}.${name}`;
}

/**
 * Walks a parsed JSON value (or a parsed query/params object) without recursion and returns the
 * first violation of the rule, or null. `root` names the value in messages ("body", "query").
 */
export function findInputViolation(value: unknown, root = ""): InputViolation | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    if (typeof current === "string") {
      if (!isCleanString(current)) return { path: path || root, reason: BAD_CHARACTER };
      continue;
    }
    if (current === null || typeof current !== "object") continue;
    if (depth >= MAX_NESTING_DEPTH) {
      return { path: path || root, reason: `must not be nested deeper than ${MAX_NESTING_DEPTH} levels` };
    }
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push({ value: current[index], path: childPath(path, index), depth: depth + 1 });
      }
      continue;
    }
    const keys = Object.keys(current);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index] as string;
      const keyPath = childPath(path, key);
      if (!isCleanString(key)) return { path: keyPath, reason: `key ${BAD_CHARACTER}` };
      stack.push({ value: (current as Record<string, unknown>)[key], path: keyPath, depth: depth + 1 });
    }
  }
  return null;
}
