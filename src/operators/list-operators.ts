import { asc, count, eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { secondFactorLockedUntil } from "../admin/factor-lockout.js";
import { operatorPasskeys, operators } from "../db/schema.js";
import { isUuid } from "../ids.js";
import type { FactorState, OperatorRow } from "./operator-replies.js";

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

/** Each operator's passkey count and second-factor lockout (for the operator replies). */
export async function readFactorStates(ctx: Context, ids: string[]): Promise<Map<string, FactorState>> {
  const counts = await ctx.db
    .select({ operatorId: operatorPasskeys.operatorId, n: count() })
    .from(operatorPasskeys)
    .groupBy(operatorPasskeys.operatorId);
  const byId = new Map(counts.map((row) => [row.operatorId, Number(row.n)]));
  const states = new Map<string, FactorState>();
  for (const id of ids) {
    states.set(id, { passkeys: byId.get(id) ?? 0, lockedUntil: await secondFactorLockedUntil(ctx, id) });
  }
  return states;
}
