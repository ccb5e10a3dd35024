/**
 * What an EVM refund or payout costs in gas (docs/payouts.md "What a payout costs"). Every version
 * of every submission of a payout is an outbox row (evm_transactions, purpose `payout`); the one
 * that lands carries its receipt's gas used and effective gas price. The payout's cost is the sum
 * over the versions that landed: at most one per nonce, so a replaced version that never landed
 * costs nothing, nor does a submission whose nonce went to a fill (`dropped`). A reverted
 * transaction is paid like any other. Wei of the chain's native coin, never USDT: the merchant
 * ledger holds no native coin, as it holds no TRX.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";

export const EVM_PAYOUT_PURPOSE = "payout";

/** The outbox ref of a payout's n-th submission: its id for the first, `<id>:<n>` after (evm-send.ts's IN_OUTBOX says the same in SQL). */
export function evmPayoutRef(id: string, attempt: number): string {
  return attempt <= 1 ? id : `${id}:${attempt}`;
}

/**
 * The versions of a payout's submissions 1..attempts, oldest first. The first signing of each ref
 * is found by its unique index, its other versions by their nonce (a replacement keeps the nonce,
 * the purpose and the ref), so no scan of the outbox is needed.
 */
function versionsOf(chain: string, id: string, attempts: number, select: ReturnType<typeof sql>) {
  const refs = Array.from({ length: Math.max(1, attempts) }, (_, i) => evmPayoutRef(id, i + 1));
  return sql`SELECT ${select}
    FROM evm_transactions g
    JOIN evm_transactions v ON v.chain = g.chain AND v.sender = g.sender AND v.nonce = g.nonce
      AND v.purpose = g.purpose AND v.ref = g.ref
    WHERE g.chain = ${chain} AND g.purpose = ${EVM_PAYOUT_PURPOSE} AND g.generation = 0
      AND g.ref IN (${sql.join(
        refs.map((r) => sql`${r}`),
        sql`, `,
      )})`;
}

/** The wei a payout's landed transactions cost: gas used x effective gas price, summed. */
export async function landedGasWei(
  db: Executor,
  chain: string,
  id: string,
  attempts: number,
): Promise<bigint> {
  const [row] = await queryRows<{ wei: string }>(
    db,
    sql`SELECT coalesce(sum(x.cost), 0)::text AS wei FROM (${versionsOf(
      chain,
      id,
      attempts,
      sql`v.gas_used * v.effective_gas_price AS cost`,
    )} AND v.state IN ('included', 'final') AND v.gas_used IS NOT NULL) x`,
  );
  return BigInt(row?.wei ?? "0");
}

/** One signed version of an EVM payout's transaction, with what it cost once it landed. */
export interface EvmPayoutVersion {
  txHash: string;
  attempt: number;
  nonce: number;
  generation: number;
  state: string;
  success: boolean | null;
  blockNumber: number | null;
  gasUsed: bigint | null;
  effectiveGasPrice: bigint | null;
  /** gas used x effective gas price; null while it has not landed (and forever if it never does) */
  gasCostWei: bigint | null;
  createdAt: Date;
  /** when the outbox last recorded where it stands: for a landed version, its inclusion or finality */
  updatedAt: Date;
}

/** Every version of a payout's submissions, by submission, nonce and generation. */
export async function evmPayoutVersions(
  db: Executor,
  chain: string,
  id: string,
  attempts: number,
): Promise<EvmPayoutVersion[]> {
  const rows = await queryRows<{
    tx_hash: string;
    ref: string;
    nonce: string;
    generation: number;
    state: string;
    success: boolean | null;
    block_number: string | null;
    gas_used: string | null;
    price: string | null;
    created_at: Date | string;
    updated_at: Date | string;
  }>(
    db,
    sql`${versionsOf(
      chain,
      id,
      attempts,
      sql`v.tx_hash, v.ref, v.nonce::text AS nonce, v.generation, v.state, v.success,
        v.block_number::text AS block_number, v.gas_used::text AS gas_used,
        v.effective_gas_price::text AS price, v.created_at, v.updated_at`,
    )} ORDER BY v.created_at, v.generation, v.id`,
  );
  const landed = (state: string) => state === "included" || state === "final";
  return rows.map((r) => {
    const gasUsed = r.gas_used === null ? null : BigInt(r.gas_used);
    const price = r.price === null ? null : BigInt(r.price);
    return {
      txHash: r.tx_hash,
      attempt: r.ref === id ? 1 : Number(r.ref.slice(id.length + 1)),
      nonce: Number(r.nonce),
      generation: Number(r.generation),
      state: r.state,
      success: r.success === null ? null : r.success === true || String(r.success) === "t",
      blockNumber: r.block_number === null ? null : Number(r.block_number),
      gasUsed,
      effectiveGasPrice: price,
      gasCostWei: landed(r.state) && gasUsed !== null && price !== null ? gasUsed * price : null,
      createdAt: new Date(r.created_at),
      updatedAt: new Date(r.updated_at),
    };
  });
}
