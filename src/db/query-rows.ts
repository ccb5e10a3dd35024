import { sql, type SQL } from "drizzle-orm";
import type { Database, Executor } from "./connection.js";
import { tagStatement } from "./database-error.js";

/**
 * Runs a raw SQL statement and returns its rows. Both drivers answer `{ rows }`; the raw value types
 * differ between them (node-postgres gives counts as strings, PGlite as numbers, and timestamps
 * differ too), so raw queries cast in SQL (`::text`, `::int`) and parse what they read.
 */
export async function queryRows<T extends Record<string, unknown>>(db: Executor, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

export interface PreparedStatement {
  /** Unique per statement text: PostgreSQL keeps the parsed statement per connection by name. */
  name: string;
  /** SQL with $1, $2 ... placeholders, built once at module load. */
  text: string;
}

interface PgQueryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs a hot statement outside any transaction. On PostgreSQL it is a named prepared statement, so
 * each pooled connection parses and plans it once instead of on every call, and nothing is built
 * per call beyond the parameter array. On PGlite it runs as a plain parameterised query. Not for
 * use behind a transaction-mode pooler that does not track prepared statements.
 */
export async function runPrepared<T extends Record<string, unknown>>(
  database: Database,
  statement: PreparedStatement,
  values: unknown[],
): Promise<T[]> {
  const client = (database.db as unknown as { $client?: PgQueryable }).$client;
  try {
    if (database.kind === "postgres" && client !== undefined) {
      const result = await client.query({ name: statement.name, text: statement.text, values });
      return result.rows as T[];
    }
    return await database.session(async (session) => (await session.query<T>(statement.text, values)).rows);
  } catch (error) {
    throw tagStatement(error, statement.name);
  }
}

/** The same statement for use inside a transaction (through Drizzle, so it joins the transaction). */
export function preparedToSql(statement: PreparedStatement, values: unknown[]): SQL {
  const chunks: SQL[] = [];
  const pattern = /\$(\d+)/g;
  let last = 0;
  for (let match = pattern.exec(statement.text); match !== null; match = pattern.exec(statement.text)) {
    chunks.push(sql.raw(statement.text.slice(last, match.index)), sql`${values[Number(match[1]) - 1]}`);
    last = match.index + match[0].length;
  }
  chunks.push(sql.raw(statement.text.slice(last)));
  return sql.join(chunks);
}
