/**
 * What may be said about a failed database statement in a log: its SQL state and the name of the
 * statement, nothing else. Driver errors carry the statement's text and parameters (Drizzle puts
 * both in the message; PostgreSQL's message and detail quote values), and parameters hold API-key
 * hashes, callback URLs, metadata and webhook secrets.
 */

const STATEMENT_NAME = Symbol("stablegate.statementName");
const SQLSTATE = /^[0-9A-Z]{5}$/;

export interface DatabaseErrorSummary {
  type: "DatabaseError";
  /** PostgreSQL SQLSTATE, e.g. 23505; "unknown" when the driver gave none. */
  sqlstate: string;
  /** The prepared statement's name, or the verb and table of the SQL ("insert orders"). */
  statement: string;
}

/** Tags an error with the name of the prepared statement that raised it. */
export function tagStatement(error: unknown, name: string): unknown {
  if (error !== null && typeof error === "object") {
    Object.defineProperty(error, STATEMENT_NAME, { value: name, enumerable: false, configurable: true });
  }
  return error;
}

function describeSql(text: string): string {
  const match =
    /^\s*(select|insert\s+into|update|delete\s+from|with|alter|create|drop|lock)\s+(?:only\s+)?"?([A-Za-z_][\w.]*)?/i.exec(
      text,
    );
  if (!match) return "sql";
  const verb = (match[1] as string).toLowerCase().split(/\s+/)[0] as string;
  return match[2] ? `${verb} ${match[2]}` : verb;
}

function isDriverError(error: object): boolean {
  const { code, severity, name } = error as { code?: unknown; severity?: unknown; name?: unknown };
  if (
    typeof code === "string" &&
    SQLSTATE.test(code) &&
    (typeof severity === "string" || name === "DatabaseError")
  ) {
    return true;
  }
  return (
    name === "DrizzleQueryError" ||
    (typeof (error as { query?: unknown }).query === "string" && "params" in error)
  );
}

/** Summarises a database error found anywhere in `error`'s cause chain; null for other errors. */
export function describeDatabaseError(error: unknown): DatabaseErrorSummary | null {
  let sqlstate: string | undefined;
  let statement: string | undefined;
  let found = false;
  for (
    let current = error, depth = 0;
    current !== null && typeof current === "object" && depth < 6;
    depth++
  ) {
    const tagged = (current as Record<symbol, unknown>)[STATEMENT_NAME];
    if (typeof tagged === "string") statement ??= tagged;
    if (isDriverError(current)) {
      found = true;
      const code = (current as { code?: unknown }).code;
      if (typeof code === "string" && SQLSTATE.test(code)) sqlstate ??= code;
      const query = (current as { query?: unknown }).query;
      if (typeof query === "string") statement ??= describeSql(query);
    }
    current = (current as { cause?: unknown }).cause;
  }
  if (!found) return null;
  return { type: "DatabaseError", sqlstate: sqlstate ?? "unknown", statement: statement ?? "unnamed" };
}

/** The Retry-After (seconds) of a 503 answered because the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

// Connection-level failures of PostgreSQL (SQLSTATE class 08, admin or crash shutdown 57P01-57P03,
// too many connections 53300, the system starting up or shutting down), socket errors, the pool's
// connect timeout, a statement without an answer past the pool's query timeout (a frozen server or a
// cut network), a client whose connection died, and a closed pool or PGlite instance: the same
// statement may succeed later, so callers answer 503 or retry instead of failing hard.
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "53300",
  "57P01",
  "57P02",
  "57P03",
]);
const UNAVAILABLE_MESSAGE =
  /connection terminated|cannot use a pool after calling end|pglite is closed|connection timeout|timeout exceeded when trying to connect|query read timeout|not queryable|the database system is (starting up|shutting down|in recovery mode)/i;

/** True when `error` (or an error in its cause chain) says the database cannot be reached now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 6; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE_CODES.has(code) || code.startsWith("08"))) return true;
    if (UNAVAILABLE_MESSAGE.test(current.message)) return true;
    // Node reports a refused connection to every address of a name (::1 and 127.0.0.1) as one
    // AggregateError whose own code may be missing.
    if (current instanceof AggregateError && current.errors.some((inner) => isDatabaseUnavailable(inner))) {
      return true;
    }
    current = current.cause;
  }
  return false;
}
