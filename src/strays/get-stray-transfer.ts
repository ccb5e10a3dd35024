/**
 * One stray transfer with its address's history: every stray to that address, the address's own
 * settlement (sweeps of stray balances), and the orders it belonged to (the current holder and the
 * last one; order history by address is not indexed, DESIGN.md keeps order creation lean).
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { formatAmount, formatSun } from "../money.js";
import { txExplorerUrl } from "../payments/explorer.js";
import { readStrayViews, type StrayTransferView } from "./stray-view.js";

export interface StrayAddressHistory {
  address: string;
  /** free, allocated (held by an order or by an unswept stray balance) */
  status: string;
  order_id: string | null;
  last_order_id: string | null;
  strays: StrayTransferView[];
  settlement: {
    status: string;
    round: number;
    amount: string | null;
    fee_trx: string | null;
    sweep_tx_hash: string | null;
    swept_at: string | null;
    attempts: number;
    last_error: string | null;
    explorer_url: string | null;
  } | null;
}

export interface StrayDetail {
  stray: StrayTransferView;
  address: StrayAddressHistory;
}

export async function getStrayTransfer(ctx: Context, id: string): Promise<StrayDetail> {
  const notFound = new AppError("NOT_FOUND", "stray transfer not found");
  if (!isUuid(id)) throw notFound;
  const [stray] = await readStrayViews(ctx, ctx.db, sql`WHERE st.id = ${id}::uuid`);
  if (!stray) throw notFound;
  const [address] = await queryRows<{
    address: string;
    status: string;
    order_id: string | null;
    last_order_id: string | null;
  }>(
    ctx.db,
    sql`SELECT address, status, order_id::text AS order_id, last_order_id::text AS last_order_id
        FROM addresses WHERE address = ${stray.address}`,
  );
  const [strays, [settlement]] = await Promise.all([
    readStrayViews(
      ctx,
      ctx.db,
      sql`WHERE st.to_address = ${stray.address} ORDER BY st.block_number DESC, st.log_index DESC LIMIT 100`,
    ),
    queryRows<{
      status: string;
      round: number;
      amount: string | null;
      fee_trx: string | null;
      sweep_tx_hash: string | null;
      swept_at: Date | string | null;
      attempts: number;
      last_error: string | null;
    }>(
      ctx.db,
      sql`SELECT s.status, s.round, s.amount::text AS amount, s.fee_trx::text AS fee_trx, s.sweep_tx_hash,
            s.swept_at, s.attempts, s.last_error
          FROM settlements s JOIN addresses a ON a.id = s.address_id
          WHERE a.address = ${stray.address} AND s.order_id IS NULL`,
    ),
  ]);
  return {
    stray,
    address: {
      address: stray.address,
      status: address?.status ?? "unknown",
      order_id: address?.order_id ?? null,
      last_order_id: address?.last_order_id ?? null,
      strays,
      settlement: settlement
        ? {
            status: settlement.status,
            round: settlement.round,
            amount: settlement.amount === null ? null : formatAmount(BigInt(settlement.amount)),
            fee_trx: settlement.fee_trx === null ? null : formatSun(BigInt(settlement.fee_trx)),
            sweep_tx_hash: settlement.sweep_tx_hash,
            swept_at: settlement.swept_at === null ? null : new Date(settlement.swept_at).toISOString(),
            attempts: settlement.attempts,
            last_error: settlement.last_error,
            explorer_url:
              settlement.sweep_tx_hash === null ? null : txExplorerUrl(ctx.config, settlement.sweep_tx_hash),
          }
        : null,
    },
  };
}
