/**
 * How much USDT a round sweeps. An order's (or a stray's) address is swept whole: its on-chain
 * balance. A static deposit address (DESIGN.md 15) is swept by its deposits instead: a round takes the
 * confirmed deposits not yet swept, marks them with (settlement, round) once, and moves exactly
 * their sum, so every deposit is swept once and a deposit still unconfirmed (which a fork could
 * drop) waits for the next round. The marking happens once per round, in its own statement, before
 * anything is signed: a step retried after a crash finds the same deposits and the same sum. Only
 * the settlement's own chain's deposits count: an address's deposits on another chain are swept there.
 */
import { sql } from "drizzle-orm";
import { queryRows } from "../db/query-rows.js";
import { usdtBalance } from "./sweep-chain.js";
import type { SettlementRow, SweepDeps } from "./sweep-types.js";

export function isStatic(row: SettlementRow): boolean {
  return row.static_index !== null && row.static_index !== undefined;
}

export async function sweepableAmount(d: SweepDeps, row: SettlementRow): Promise<bigint> {
  if (!isStatic(row)) return usdtBalance(d, row.address);
  const assigned = await queryRows<{ total: string | null; n: string }>(
    d.ctx.db,
    sql`SELECT sum(amount)::text AS total, count(*)::text AS n FROM deposits
        WHERE settlement_id = ${row.id}::uuid AND sweep_round = ${row.round}`,
  );
  if (Number(assigned[0]?.n ?? 0) > 0) return BigInt(assigned[0]?.total ?? "0");
  const marked = await queryRows<{ total: string | null }>(
    d.ctx.db,
    sql`WITH marked AS (
          UPDATE deposits SET settlement_id = ${row.id}::uuid, sweep_round = ${row.round},
                 updated_at = ${d.ctx.clock.now().toISOString()}::timestamptz
          WHERE to_address = ${row.address} AND chain = ${row.chain ?? "tron"}
            AND status = 'confirmed' AND settlement_id IS NULL
          RETURNING amount)
        SELECT sum(amount)::text AS total FROM marked`,
  );
  return BigInt(marked[0]?.total ?? "0");
}

/** What is left for another round once this one is solid. */
export async function sweepableRest(d: SweepDeps, row: SettlementRow): Promise<bigint> {
  if (!isStatic(row)) return usdtBalance(d, row.address);
  const [rest] = await queryRows<{ total: string | null }>(
    d.ctx.db,
    sql`SELECT sum(amount)::text AS total FROM deposits
        WHERE to_address = ${row.address} AND chain = ${row.chain ?? "tron"}
          AND status = 'confirmed' AND settlement_id IS NULL`,
  );
  return BigInt(rest?.total ?? "0");
}
