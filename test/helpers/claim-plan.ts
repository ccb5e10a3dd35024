/** The plan of one claim of free addresses, as the creation statement makes it (rolled back). */
import type { Context } from "../../src/context.js";
import { claimFreeAddresses } from "../../src/wallet/free-addresses.js";

export interface ClaimPlan {
  plan: string;
  /** Shared buffers (hit + read) of the walk of the free list (free_addresses_pkey and its heap). */
  listBuffers: number;
}

const BUFFERS = /Buffers: shared hit=(\d+)(?: read=(\d+))?/;
const count = (match: RegExpExecArray) => Number(match[1]) + Number(match[2] ?? 0);

/** EXPLAIN ANALYZE of a claim of `limit` (an SQL expression) free addresses from index `floor`. */
export async function explainClaim(ctx: Context, floor: number, limit: string): Promise<ClaimPlan> {
  return ctx.database.session(async (s) => {
    await s.query("BEGIN");
    try {
      const { rows } = await s.query<{ "QUERY PLAN": string }>(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) ${claimFreeAddresses(String(floor))} LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
      );
      const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
      const list = BUFFERS.exec(plan.slice(plan.indexOf("free_addresses_pkey")));
      if (!list || !plan.includes("free_addresses_pkey"))
        throw new Error(`no buffer counts of the claim's walk of the free list in the plan:\n${plan}`);
      return { plan, listBuffers: count(list) };
    } finally {
      await s.query("ROLLBACK");
    }
  });
}
