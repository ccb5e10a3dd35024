/** The admin API's shape of a stray transfer (GET /admin/stray-transfers and its detail). */
import { sql } from "drizzle-orm";
import type { StrayTransferView } from "../admin/api-shapes.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { formatUnits } from "../chains/token-units.js";
import { formatAmount } from "../money.js";
import { txExplorerUrl } from "../payments/explorer.js";

export type { StrayTransferView };

/** The row read for a view: the stray, its address's sweep and the scanned head. */
export interface StrayViewRow extends Record<string, unknown> {
  id: string;
  address_id: string;
  tx_hash: string;
  log_index: number;
  block_number: string;
  block_timestamp: Date | string;
  from_address: string;
  to_address: string;
  amount: string;
  remainder: string;
  token_decimals: number;
  chain: string;
  status: "seen" | "confirmed";
  confirmed_at: Date | string | null;
  previous_order_id: string | null;
  resolution: "attached" | "dismissed" | "refunded" | null;
  order_id: string | null;
  resolution_reason: string | null;
  resolved_by: Record<string, unknown> | string | null;
  resolved_at: Date | string | null;
  created_at: Date | string;
  head: string | null;
  sweep_status: string | null;
  sweep_step: string | null;
  sweep_amount: string | null;
  sweep_tx_hash: string | null;
  swept_at: Date | string | null;
}

/** SELECT list and joins of a stray view; `where`/`order` are added by the caller. */
export const STRAY_VIEW_SELECT = sql`
  SELECT st.id::text AS id, st.address_id::text AS address_id, st.tx_hash, st.log_index,
    st.block_number::text AS block_number, st.block_timestamp, st.from_address, st.to_address,
    st.amount::text AS amount, st.remainder::text AS remainder, st.token_decimals, st.chain, st.status, st.confirmed_at, st.previous_order_id::text AS previous_order_id,
    st.resolution, st.order_id::text AS order_id, st.resolution_reason, st.resolved_by, st.resolved_at,
    st.created_at,
    (SELECT block_number::text FROM scanner_cursor LIMIT 1) AS head,
    s.status AS sweep_status, s.step AS sweep_step, s.amount::text AS sweep_amount, s.sweep_tx_hash, s.swept_at
  FROM stray_transfers st
  LEFT JOIN settlements s ON s.address_id = st.address_id AND s.order_id IS NULL`;

const iso = (v: Date | string | null): string | null => (v === null ? null : new Date(v).toISOString());

export function toStrayView(ctx: Context, row: StrayViewRow): StrayTransferView {
  const head = row.head === null ? null : Number(row.head);
  const block = Number(row.block_number);
  const createdAt = new Date(row.created_at);
  const sweptAt = row.swept_at === null ? null : new Date(row.swept_at);
  // Swept when the address's settlement completed after this stray was recorded.
  const swept = row.sweep_status === "completed" && sweptAt !== null && sweptAt >= createdAt;
  const by = typeof row.resolved_by === "string" ? JSON.parse(row.resolved_by) : row.resolved_by;
  return {
    id: row.id,
    tx_hash: row.tx_hash,
    log_index: row.log_index,
    address: row.to_address,
    from_address: row.from_address,
    amount: formatAmount(BigInt(row.amount)),
    chain: row.chain,
    // token units below one micro-unit, as an exact decimal of the token ("0.000000500000000000")
    remainder: formatUnits(BigInt(row.remainder), Number(row.token_decimals)),
    block_number: block,
    block_timestamp: iso(row.block_timestamp) as string,
    status: row.status,
    confirmations: head === null ? 0 : Math.max(0, head - block + 1),
    previous_order_id: row.previous_order_id,
    resolution: row.resolution,
    order_id: row.order_id,
    resolution_reason: row.resolution_reason,
    resolved_by: (by as StrayTransferView["resolved_by"]) ?? null,
    resolved_at: iso(row.resolved_at),
    sweep: {
      status: swept
        ? "swept"
        : row.status === "seen"
          ? "unconfirmed"
          : row.sweep_status === null
            ? "not_queued"
            : // the address's last round found a balance below SWEEP_MIN_USDT: dust, left on the
              // address (which stays out of the pool, release-addresses.ts)
              row.sweep_status === "completed" &&
                row.sweep_step === "below_minimum" &&
                BigInt(row.sweep_amount ?? "0") > 0n
              ? "below_minimum"
              : // a completed settlement that predates this stray swept an earlier balance
                row.sweep_status === "completed"
                ? "not_swept"
                : row.sweep_status,
      sweep_tx_hash: swept ? row.sweep_tx_hash : null,
      swept_at: swept ? iso(sweptAt) : null,
    },
    explorer_url: txExplorerUrl(ctx.config, row.tx_hash),
    created_at: createdAt.toISOString(),
    confirmed_at: iso(row.confirmed_at),
  };
}

export async function readStrayViews(
  ctx: Context,
  db: Executor,
  tail: ReturnType<typeof sql>,
): Promise<StrayTransferView[]> {
  const rows = await queryRows<StrayViewRow>(db, sql`${STRAY_VIEW_SELECT} ${tail}`);
  return rows.map((row) => toStrayView(ctx, row));
}
