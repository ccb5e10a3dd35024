/**
 * The EVM outbox's rows (migration 0025): nonce cursors per (chain, sender) and one row per signed
 * version of a transaction. Raw queries cast numbers to text and times to epoch ms, read back here.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import type { SignedAuthorization } from "../chains/chain.js";

export type OutboxState = "signed" | "broadcast" | "included" | "final" | "replaced" | "dropped";

/** A version to store: the fields signed and what signing gave. */
export interface NewVersion {
  chain: string;
  sender: string;
  nonce: number;
  purpose: string;
  ref: string;
  generation: number;
  to: string;
  value: bigint;
  data: string;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  raw: string;
  hash: string;
  /** EIP-7702 authorizations of a type-4 transaction. */
  authorizations?: readonly SignedAuthorization[] | undefined;
}

export interface OutboxRow extends NewVersion {
  id: string;
  state: OutboxState;
  blockNumber: number | null;
  blockHash: string | null;
  /** The receipt's status once included (null before). */
  success: boolean | null;
  note: string | null;
  /** Epoch ms. */
  createdAt: number;
  firstBroadcastAt: number | null;
  broadcastAt: number | null;
  broadcastHead: number | null;
}

const COLUMNS = sql.raw(`id::text AS id, chain, sender, nonce::text AS nonce, purpose, ref, generation,
  to_address, value::text AS value, data, gas_limit::text AS gas_limit,
  max_fee_per_gas::text AS max_fee, max_priority_fee_per_gas::text AS tip, raw, tx_hash, state,
  block_number::text AS block_number, block_hash, success, note,
  (extract(epoch FROM created_at) * 1000)::bigint::text AS created_at,
  (extract(epoch FROM first_broadcast_at) * 1000)::bigint::text AS first_broadcast_at,
  (extract(epoch FROM broadcast_at) * 1000)::bigint::text AS broadcast_at,
  broadcast_head::text AS broadcast_head, authorization_list`);

type Raw = Record<string, string | number | boolean | null | SignedAuthorization[]>;
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function rowOf(r: Raw): OutboxRow {
  return {
    id: String(r.id),
    chain: String(r.chain),
    sender: String(r.sender),
    nonce: Number(r.nonce),
    purpose: String(r.purpose),
    ref: String(r.ref),
    generation: Number(r.generation),
    to: String(r.to_address),
    value: BigInt(String(r.value)),
    data: String(r.data),
    gasLimit: BigInt(String(r.gas_limit)),
    maxFeePerGas: BigInt(String(r.max_fee)),
    maxPriorityFeePerGas: BigInt(String(r.tip)),
    raw: String(r.raw),
    hash: String(r.tx_hash),
    state: r.state as OutboxState,
    blockNumber: num(r.block_number),
    blockHash: r.block_hash === null ? null : String(r.block_hash),
    success: r.success === null || r.success === undefined ? null : r.success === true || r.success === "t",
    note: r.note === null ? null : String(r.note),
    createdAt: Number(r.created_at),
    firstBroadcastAt: num(r.first_broadcast_at),
    broadcastAt: num(r.broadcast_at),
    broadcastHead: num(r.broadcast_head),
    authorizations: Array.isArray(r.authorization_list) ? r.authorization_list : undefined,
  };
}

async function select(db: Executor, where: SQL): Promise<OutboxRow[]> {
  return (await queryRows<Raw>(db, sql`SELECT ${COLUMNS} FROM evm_transactions WHERE ${where}`)).map(rowOf);
}

/** The first signing of (chain, purpose, ref), with its live version when replaced. */
export async function findByPurpose(
  db: Executor,
  chain: string,
  purpose: string,
  ref: string,
): Promise<OutboxRow[]> {
  return select(
    db,
    sql`chain = ${chain} AND purpose = ${purpose} AND ref = ${ref} ORDER BY generation DESC, id DESC`,
  );
}

/** Every version of each (purpose, ref) of `keys` on `chain`, newest generation first. */
export async function findByPurposes(
  db: Executor,
  chain: string,
  keys: readonly { purpose: string; ref: string }[],
): Promise<OutboxRow[]> {
  if (keys.length === 0) return [];
  const pairs = sql.join(
    keys.map((k) => sql`(${k.purpose}, ${k.ref})`),
    sql`, `,
  );
  return select(db, sql`chain = ${chain} AND (purpose, ref) IN (${pairs}) ORDER BY generation DESC, id DESC`);
}

export async function hasCursor(db: Executor, chain: string, sender: string): Promise<boolean> {
  const rows = await queryRows(
    db,
    sql`SELECT 1 AS one FROM evm_nonce_cursors WHERE chain = ${chain} AND sender = ${sender}`,
  );
  return rows.length > 0;
}

/** Creates the cursor at `next` unless another process did first. */
export async function initCursor(db: Executor, chain: string, sender: string, next: number, at: Date) {
  await db.execute(sql`INSERT INTO evm_nonce_cursors (chain, sender, next_nonce, updated_at)
    VALUES (${chain}, ${sender}, ${next}, ${at}) ON CONFLICT (chain, sender) DO NOTHING`);
}

/** Locks the cursor row until the transaction ends and hands out `count` nonces: the first of them. */
export async function takeNonces(tx: Executor, chain: string, sender: string, count: number, at: Date) {
  const rows = await queryRows<{ nonce: string }>(
    tx,
    sql`UPDATE evm_nonce_cursors SET next_nonce = next_nonce + ${count}, updated_at = ${at}
        WHERE chain = ${chain} AND sender = ${sender} RETURNING (next_nonce - ${count})::text AS nonce`,
  );
  return rows[0] ? Number(rows[0].nonce) : undefined;
}

/** Inserts a version; undefined when (chain, purpose, ref) already has a first signing. */
export async function insertVersion(tx: Executor, v: NewVersion, at: Date): Promise<string | undefined> {
  return (await insertVersions(tx, [v], at))[0];
}

/** Inserts versions in one statement; answers the ids of those stored (a conflicting one is not). */
export async function insertVersions(tx: Executor, vs: readonly NewVersion[], at: Date): Promise<string[]> {
  const values = vs.map(
    (v) => sql`(${v.chain}, ${v.sender}, ${v.nonce}, ${v.purpose}, ${v.ref}, ${v.generation}, ${v.to},
      ${v.value.toString()}, ${v.data}, ${v.gasLimit.toString()}, ${v.maxFeePerGas.toString()},
      ${v.maxPriorityFeePerGas.toString()}, ${v.raw}, ${v.hash}, 'signed', ${at}::timestamptz, ${at}::timestamptz,
      ${v.authorizations?.length ? JSON.stringify(v.authorizations) : null}::jsonb)`,
  );
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`INSERT INTO evm_transactions (chain, sender, nonce, purpose, ref, generation, to_address, value,
          data, gas_limit, max_fee_per_gas, max_priority_fee_per_gas, raw, tx_hash, state, created_at,
          updated_at, authorization_list)
        VALUES ${sql.join(values, sql`, `)}
        ON CONFLICT (chain, purpose, ref) WHERE generation = 0 DO NOTHING
        RETURNING id::text AS id`,
  );
  return rows.map((r) => r.id);
}

export async function markBroadcast(db: Executor, id: string, at: Date, head: number | null) {
  await db.execute(sql`UPDATE evm_transactions SET
      state = CASE WHEN state = 'signed' THEN 'broadcast' ELSE state END,
      first_broadcast_at = coalesce(first_broadcast_at, ${at}),
      broadcast_head = coalesce(broadcast_head, ${head}),
      broadcast_at = ${at}, updated_at = ${at}
    WHERE id = ${id}::bigint`);
}

/** Senders of a chain with unsettled transactions. */
export async function unsettledSenders(db: Executor, chain: string): Promise<string[]> {
  const rows = await queryRows<{ sender: string }>(
    db,
    sql`SELECT DISTINCT sender FROM evm_transactions
        WHERE chain = ${chain} AND state IN ('signed', 'broadcast', 'included')`,
  );
  return rows.map((r) => r.sender);
}

/** Every version at the nonces where `sender` has an unsettled transaction, by nonce then age. */
export async function unsettledNonces(db: Executor, chain: string, sender: string): Promise<OutboxRow[]> {
  return select(
    db,
    sql`chain = ${chain} AND sender = ${sender} AND nonce IN (
          SELECT nonce FROM evm_transactions
          WHERE chain = ${chain} AND sender = ${sender} AND state IN ('signed', 'broadcast', 'included'))
        ORDER BY nonce, generation, id`,
  );
}

export interface Inclusion {
  blockNumber: number;
  blockHash: string;
  success: boolean;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
}

/**
 * `id` is the version that landed: it becomes included (or final), every other version of its
 * nonce replaced. The live one is set aside first, so the one-live-row-per-nonce index holds.
 */
export async function markLanded(tx: Executor, row: OutboxRow, inc: Inclusion, final: boolean, at: Date) {
  await tx.execute(sql`UPDATE evm_transactions SET state = 'replaced', updated_at = ${at}
    WHERE chain = ${row.chain} AND sender = ${row.sender} AND nonce = ${row.nonce} AND id <> ${row.id}::bigint
      AND state IN ('signed', 'broadcast', 'included', 'final')`);
  await tx.execute(sql`UPDATE evm_transactions SET state = ${final ? "final" : "included"},
      block_number = ${inc.blockNumber}, block_hash = ${inc.blockHash}, success = ${inc.success},
      gas_used = ${inc.gasUsed.toString()}, effective_gas_price = ${inc.effectiveGasPrice.toString()},
      updated_at = ${at}
    WHERE id = ${row.id}::bigint`);
}

/** An included transaction whose block was reorganised away: unsent again, to be re-broadcast. */
export async function markUnincluded(db: Executor, id: string, at: Date) {
  await db.execute(sql`UPDATE evm_transactions SET state = 'broadcast', block_number = NULL,
      block_hash = NULL, success = NULL, gas_used = NULL, effective_gas_price = NULL,
      note = 'reorganised out; re-broadcast', broadcast_at = NULL, updated_at = ${at}
    WHERE id = ${id}::bigint AND state = 'included'`);
}

/** The live version turns `state` (replaced or dropped) with a note; true when it was live. */
export async function retire(
  tx: Executor,
  id: string,
  state: "replaced" | "dropped",
  note: string,
  at: Date,
) {
  const rows = await queryRows(
    tx,
    sql`UPDATE evm_transactions SET state = ${state}, note = ${note}, updated_at = ${at}
        WHERE id = ${id}::bigint AND state IN ('signed', 'broadcast') RETURNING id`,
  );
  return rows.length > 0;
}
