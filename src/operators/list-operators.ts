import { asc, eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { operators } from "../db/schema.js";
import { isUuid } from "../ids.js";
import type { OperatorRow } from "./operator-replies.js";

/** Every operator, the built-in owner first, then by creation. */
export async function listOperators(ctx: Context): Promise<OperatorRow[]> {
  const rows = await ctx.db.select().from(operators).orderBy(asc(operators.createdAt), asc(operators.id));
  return rows.sort((a, b) => Number(b.isBuiltin) - Number(a.isBuiltin));
}

export async function findOperator(ctx: Context, id: string): Promise<OperatorRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await ctx.db.select().from(operators).where(eq(operators.id, id));
  return row;
}
