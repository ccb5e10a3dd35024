/** The plan of one claim of free addresses, as the creation statement makes it (rolled back). */
import type { Context } from "../../src/context.js";
import { claimFreeAddresses } from "../../src/payments/create-order.js";

export interface ClaimPlan {
  plan: string;
  /** Shared buffers the claim touched (hit + read). */
  buffers: number;
}

/** EXPLAIN ANALYZE of a claim of `limit` (an SQL expression) free addresses from index `floor`. */
export async function explainClaim(ctx: Context, floor: number, limit: string): Promise<ClaimPlan> {
  return ctx.database.session(async (s) => {
    await s.query("BEGIN");
    try {
      const { rows } = await s.query<{ "QUERY PLAN": string }>(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${claimFreeAddresses(String(floor))} LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
      );
      const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
      const match = /Buffers: shared hit=(\d+)(?: read=(\d+))?/.exec(plan);
      if (!match) throw new Error(`no buffer counts in the plan:\n${plan}`);
      return { plan, buffers: Number(match[1]) + Number(match[2] ?? 0) };
    } finally {
      await s.query("ROLLBACK");
    }
  });
}
