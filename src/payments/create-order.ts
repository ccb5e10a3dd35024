/**
 * POST /api/v1/payments. One statement claims a free address (FOR UPDATE SKIP LOCKED), inserts the
 * order, binds the address to it and records order_created: a single short transaction with one
 * round trip, because order creation is the hot path. Concurrent creations share that statement
 * (StatementBatcher): under load one round trip and one commit serve many requests. Creation is idempotent on
 * (merchant, external_id): a replay with the same amount, chain, currency and callback_url returns
 * the existing order, anything else is EXTERNAL_ID_CONFLICT. An order is on one enabled chain
 * (ctx.chains; the primary one when the request names none) in a currency that chain has a token
 * for: any other pair is UNSUPPORTED_CURRENCY, before anything is written. Concurrent double submits meet at the
 * unique index; the loser's statement inserts nothing and re-reads the winner's order.
 */
import type { Chain } from "../chains/chain.js";
import { isChainId, type ChainFamilyName, type ChainId, type Currency } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import { preparedToSql, queryRows, runPrepared, type PreparedStatement } from "../db/query-rows.js";
import type { Executor } from "../db/connection.js";
import { sql } from "drizzle-orm";
import { AppError } from "../errors.js";
import { refuseStaleKey } from "../merchants/authenticate-merchant.js";
import { newId } from "../ids.js";
import { localSlot } from "../local-state.js";
import { formatAmount, parseAmount } from "../money.js";
import type { OrderEventType } from "../orders/transitions.js";
import { StatementBatcher } from "../db/statement-batcher.js";
import { deriveAddressInline, replenishPoolInline } from "../wallet/derive-address-inline.js";
import { wakePoolFiller } from "../wallet/fill-address-pool.js";
import { claimFreeAddresses } from "../wallet/free-addresses.js";
import { assertCallbackUrlAccepted } from "./callback-url.js";
import {
  findMerchantOrderByExternalId,
  toMerchantOrder,
  type MerchantOrder,
  type OrderRow,
} from "./merchant-order.js";

export const EXPIRES_IN_MIN = 60;
export const EXPIRES_IN_MAX = 86_400;
export const METADATA_MAX_BYTES = 4096;

export interface OrderMerchant {
  id: string;
  /**
   * HMAC of the API key the request came with. When given, the creation statement also requires
   * that key to still be the merchant's, so a cached authentication can never outlive a rotation.
   */
  apiKeyHash?: string | null;
}

export interface CreateOrderInput {
  externalId: string;
  /** Decimal string, > 0, at most 6 decimals. */
  amount: string;
  currency: Currency;
  /** An enabled chain's id; the primary chain (ctx.chains.primary) when absent. */
  chain?: string | undefined;
  callbackUrl: string;
  /** Seconds; config.orderTtlSeconds when absent. */
  expiresIn?: number | undefined;
  metadata?: Record<string, unknown> | null | undefined;
}

export interface CreateOrderResult {
  order: MerchantOrder;
  /** false when an idempotent replay returned the existing order. */
  created: boolean;
}

const CREATED_EVENT: OrderEventType = "order_created";

interface Prepared {
  id: string;
  merchantId: string;
  apiKeyHash: string | null;
  externalId: string;
  amount: bigint;
  currency: Currency;
  chain: ChainId;
  /** The chain's family: the address pool the order claims from. */
  family: ChainFamilyName;
  /** The chain's network name (SPEC's `network`). */
  network: string;
  callbackUrl: string;
  metadata: Record<string, unknown> | null;
  now: Date;
  expiresAt: Date;
}

/**
 * The enabled chain an order on `chainName` in `currency` is paid on: one the deployment enables
 * (ctx.chains) with a token of that currency, else UNSUPPORTED_CURRENCY.
 */
export function orderChain(ctx: Context, chainName: string | undefined, currency: Currency): Chain {
  const chain =
    chainName === undefined
      ? ctx.chains.primary
      : isChainId(chainName)
        ? ctx.chains.get(chainName)
        : undefined;
  const enabled = ctx.chains.list.map((c) => c.id).join(", ");
  if (!chain) {
    throw new AppError(
      "UNSUPPORTED_CURRENCY",
      `body.chain: ${JSON.stringify(chainName)} is not a chain this deployment accepts (enabled: ${enabled})`,
    );
  }
  if (!chain.currencies.includes(currency)) {
    const offered = chain.currencies.join(", ");
    throw new AppError(
      "UNSUPPORTED_CURRENCY",
      `body.currency: ${currency} is not accepted on ${chain.id} by this deployment (accepted: ${offered})`,
    );
  }
  return chain;
}

function prepare(ctx: Context, merchant: OrderMerchant, input: CreateOrderInput): Prepared {
  const amount = parseAmount(input.amount);
  if (amount === null || amount <= 0n) {
    throw new AppError(
      "INVALID_BODY",
      "body.amount: must be a decimal string greater than 0 with at most 6 decimals",
    );
  }
  if (input.externalId.length < 1 || input.externalId.length > 128) {
    throw new AppError("INVALID_BODY", "body.external_id: must be 1 to 128 characters");
  }
  const expiresIn = input.expiresIn ?? ctx.config.orderTtlSeconds;
  if (!Number.isInteger(expiresIn) || expiresIn < EXPIRES_IN_MIN || expiresIn > EXPIRES_IN_MAX) {
    throw new AppError("INVALID_BODY", "body.expires_in: must be an integer from 60 to 86400 seconds");
  }
  const metadata = input.metadata ?? null;
  if (metadata !== null && Buffer.byteLength(JSON.stringify(metadata)) > METADATA_MAX_BYTES) {
    throw new AppError("INVALID_BODY", "body.metadata: must serialize to at most 4096 bytes");
  }
  assertCallbackUrlAccepted(ctx.config, input.callbackUrl);
  const chain = orderChain(ctx, input.chain, input.currency);
  const now = ctx.clock.now();
  return {
    id: newId(),
    merchantId: merchant.id,
    apiKeyHash: merchant.apiKeyHash ?? null,
    externalId: input.externalId,
    amount,
    currency: input.currency,
    chain: chain.id,
    family: chain.family,
    network: chain.network,
    callbackUrl: input.callbackUrl,
    metadata,
    now,
    expiresAt: new Date(now.getTime() + expiresIn * 1000),
  };
}

interface InsertOutcome {
  /** false when the merchant is suspended or the key no longer belongs to it. */
  authorized: boolean;
  /** Whether the pool had a free address for this statement. */
  picked: boolean;
  /** Whether the claim started above index 0 (ClaimFloor), so free addresses below may be unseen. */
  fromFloor: boolean;
  address: string | null;
  addressId: number | null;
}

// Data-modifying CTEs run in one statement; the foreign keys (addresses.order_id,
// order_events.order_id) are checked at its end, when the order rows exist. The statement creates a
// batch of orders (see StatementBatcher): `input` is one row per request, numbered n. `authorized`
// re-checks each request's merchant in the same statement: active, and still holding the request's
// key. The authorized rows take the first free addresses in one claim (SKIP LOCKED), zipped by k.
// Per request, `picked` tells an empty pool (false) from an existing (merchant, external_id) (true,
// but nothing inserted). The claim starts at the process's claim floor ($3, see ClaimFloor) in the
// pool of the batch's chain family ($4: a batch is one family's).
const CREATE_ORDERS: PreparedStatement = {
  name: "stablegate_create_orders_v5",
  text: `
    WITH input AS (
      SELECT * FROM jsonb_to_recordset($1::jsonb) AS input(n int, id uuid, merchant_id uuid,
        api_key_hash text, external_id text, amount numeric, currency text, chain text, network text, callback_url text,
        metadata jsonb, expires_at timestamptz, created_at timestamptz, event_id uuid, event_payload jsonb)
    ), authorized AS (
      SELECT input.*, row_number() OVER (ORDER BY input.n) AS k FROM input
      JOIN merchants ON merchants.id = input.merchant_id AND merchants.is_active
        AND (input.api_key_hash IS NULL OR merchants.api_key_hash = input.api_key_hash)
    ), picked AS (
      SELECT claim.id, claim.address, claim.derivation_index, row_number() OVER () AS k FROM (
        ${claimFreeAddresses("$3::int", "$4::text")} LIMIT (SELECT count(*) FROM authorized) FOR UPDATE SKIP LOCKED
      ) AS claim
    ), inserted AS (
      INSERT INTO orders (id, merchant_id, external_id, amount_expected, amount_received, currency,
        chain, network, status, address, address_id, callback_url, metadata, expires_at, created_at, updated_at)
      SELECT authorized.id, authorized.merchant_id, authorized.external_id, authorized.amount, 0,
        authorized.currency, authorized.chain, authorized.network, 'pending', picked.address, picked.id, authorized.callback_url,
        authorized.metadata, authorized.expires_at, authorized.created_at, authorized.created_at
      FROM authorized JOIN picked USING (k)
      ON CONFLICT (merchant_id, external_id) DO NOTHING
      RETURNING id, address, address_id, created_at
    ), bound AS (
      UPDATE addresses SET status = 'allocated', order_id = inserted.id, allocated_at = inserted.created_at,
        released_at = NULL, quarantine_until = NULL
      FROM inserted WHERE addresses.id = inserted.address_id
    ), created_event AS (
      INSERT INTO order_events (id, order_id, event_type, payload, created_at)
      SELECT authorized.event_id, inserted.id, $2::text, authorized.event_payload, inserted.created_at
      FROM inserted JOIN authorized ON authorized.id = inserted.id
    )
    SELECT input.n, authorized.k IS NOT NULL AS authorized, picked.id IS NOT NULL AS picked,
      picked.derivation_index, inserted.address, inserted.address_id::text AS address_id
    FROM input
    LEFT JOIN authorized ON authorized.n = input.n
    LEFT JOIN picked ON picked.k = authorized.k
    LEFT JOIN inserted ON inserted.id = input.id
    ORDER BY input.n`,
};

type CreateRow = {
  n: number;
  authorized: boolean;
  picked: boolean;
  derivation_index: number | null;
  address: string | null;
  address_id: string | null;
};

/**
 * Where this process's claims start in the list of free addresses (free_addresses' primary key). Every
 * claim turns the free addresses it takes into dead entries at the front of that index, and a claim from index 0 steps
 * over all of them until a vacuum removes them: at thousands of orders a second, that walk and the
 * vacuums that shorten it cost more than the rest of the claim. Claims take the lowest free
 * indexes, so once a batch has taken indexes from F up, every free address below F was taken or
 * locked by another claim: the next claims start at F. Free addresses can still appear below the
 * floor (a released address back from quarantine, a claim rolled back, a filler's block inserted
 * after a later one), so the floor drops to 0 every FLOOR_RESET_MS, and a claim from the floor that
 * finds too few is made again from 0 before the pool counts as empty. The floor only chooses where
 * a claim looks first; which address an order gets is still decided by the claim's row locks.
 */
interface ClaimFloor {
  index: number;
  /** Clock time (ms) after which the next claim starts from 0 again. */
  resetAt: number;
}
export const FLOOR_RESET_MS = 1_000;

/**
 * This process's creation state per address pool (chain family): its claim floor, and its batcher
 * (made on first use, with the context of that first use: the batch statement serves many
 * requests at once, so insertOrders must not log with the first one's id).
 */
interface PoolCreation {
  floor: ClaimFloor;
  batcher?: StatementBatcher<Prepared, InsertOutcome>;
}
const creationState = localSlot("order creation", () => new Map<ChainFamilyName, PoolCreation>());

function poolCreation(ctx: Context, family: ChainFamilyName): PoolCreation {
  const pools = ctx.local.get(creationState);
  let state = pools.get(family);
  if (!state) {
    state = { floor: { index: 0, resetAt: 0 } };
    pools.set(family, state);
  }
  return state;
}

function claimFloor(ctx: Context, family: ChainFamilyName): ClaimFloor {
  const { floor } = poolCreation(ctx, family);
  const now = ctx.clock.now().getTime();
  if (now >= floor.resetAt) {
    floor.index = 0;
    floor.resetAt = now + FLOOR_RESET_MS;
  }
  return floor;
}

/**
 * Runs the creation statement for `batch` (orders of `family`'s chains) inside `tx`, or as a
 * prepared statement on its own.
 */
async function insertOrders(
  ctx: Context,
  tx: Executor | undefined,
  family: ChainFamilyName,
  batch: readonly Prepared[],
): Promise<InsertOutcome[]> {
  const input = batch.map((p, n) => ({
    n,
    id: p.id,
    merchant_id: p.merchantId,
    api_key_hash: p.apiKeyHash,
    external_id: p.externalId,
    amount: p.amount.toString(),
    currency: p.currency,
    chain: p.chain,
    network: p.network,
    callback_url: p.callbackUrl,
    metadata: p.metadata,
    expires_at: p.expiresAt.toISOString(),
    created_at: p.now.toISOString(),
    event_id: newId(),
    event_payload: { amount_expected: formatAmount(p.amount) },
  }));
  const floor = claimFloor(ctx, family);
  const from = tx === undefined ? floor.index : 0;
  const values = [JSON.stringify(input), CREATED_EVENT, from, family];
  const rows =
    tx === undefined
      ? await runPrepared<CreateRow>(ctx.database, CREATE_ORDERS, values)
      : await queryRows<CreateRow>(tx, preparedToSql(CREATE_ORDERS, values));
  let lowest: number | undefined;
  for (const row of rows) {
    if (row.derivation_index === null) continue;
    const index = Number(row.derivation_index);
    if (lowest === undefined || index < lowest) lowest = index;
  }
  if (lowest !== undefined && lowest > floor.index) floor.index = lowest;
  return batch.map((_, n) => {
    const row = rows.find((candidate) => Number(candidate.n) === n);
    return {
      authorized: row?.authorized === true,
      picked: row?.picked === true,
      fromFloor: from > 0,
      address: row?.address ?? null,
      addressId: row?.address_id == null ? null : Number(row.address_id),
    };
  });
}

/** Largest batch of one creation statement: ~40 KB of input at most, well inside one round trip. */
const MAX_BATCH_SIZE = 64;

/**
 * The creation batcher of this context for `family`'s pool. One creation statement runs at a time while it can take
 * every waiting request; another starts beside it only when a full batch waits, up to half the
 * pool, so reads, the workers and admin requests always find a connection. Measured on two cores
 * (64 connections, deep pool): with up to 5 statements of any size at once, creation ran at
 * 0.93-0.95x the bare INSERT endpoint; with one at a time, 1.04-1.12x: fewer, fuller statements
 * spend less CPU per order in PostgreSQL (63 against about 100 µs) and in Node.
 */
function creationBatcher(ctx: Context, family: ChainFamilyName): StatementBatcher<Prepared, InsertOutcome> {
  const state = poolCreation(ctx, family);
  state.batcher ??= new StatementBatcher<Prepared, InsertOutcome>({
    maxInFlight: Math.max(1, Math.floor(ctx.database.maxConnections / 2)),
    partialInFlight: 1,
    maxBatchSize: MAX_BATCH_SIZE,
    run: (batch) => insertOrders(ctx, undefined, family, batch),
  });
  return state.batcher;
}

function replay(p: Prepared, existing: OrderRow): void {
  const same =
    existing.amountExpected === p.amount &&
    existing.currency === p.currency &&
    existing.chain === p.chain &&
    existing.callbackUrl === p.callbackUrl;
  if (!same) {
    throw new AppError(
      "EXTERNAL_ID_CONFLICT",
      `external_id ${p.externalId} was already used with a different amount, chain, currency or callback_url`,
    );
  }
}

function newOrderRow(p: Prepared, address: string, addressId: number | null): OrderRow {
  return {
    id: p.id,
    merchantId: p.merchantId,
    externalId: p.externalId,
    amountExpected: p.amount,
    amountReceived: 0n,
    currency: p.currency,
    chain: p.chain,
    network: p.network,
    status: "pending",
    address,
    addressId,
    txHash: null,
    fromAddress: null,
    callbackUrl: p.callbackUrl,
    metadata: p.metadata,
    expiresAt: p.expiresAt,
    detectedAt: null,
    confirmedAt: null,
    completedAt: null,
    createdAt: p.now,
    updatedAt: p.now,
  };
}

async function existingOrder(ctx: Context, p: Prepared): Promise<CreateOrderResult | undefined> {
  const found = await findMerchantOrderByExternalId(ctx, p.merchantId, p.externalId);
  if (!found) return undefined;
  replay(p, found.order);
  return { order: toMerchantOrder(ctx.config, found.order, found.confirmations), created: false };
}

async function refuseUnauthorized(ctx: Context, p: Prepared): Promise<never> {
  if (p.apiKeyHash !== null) return refuseStaleKey(ctx, p.apiKeyHash);
  const [row] = await queryRows<{ is_active: boolean }>(
    ctx.db,
    sql`SELECT is_active FROM merchants WHERE id = ${p.merchantId}::uuid`,
  );
  throw row
    ? new AppError("MERCHANT_INACTIVE", "merchant is suspended")
    : new AppError("NOT_FOUND", "merchant not found");
}

export async function createOrder(
  ctx: Context,
  merchant: OrderMerchant,
  input: CreateOrderInput,
): Promise<CreateOrderResult> {
  const p = prepare(ctx, merchant, input);
  let first = await creationBatcher(ctx, p.family).submit(p);
  if (first.authorized && !first.picked && first.fromFloor) {
    // Nothing free above the floor: look from index 0 before calling the pool empty.
    poolCreation(ctx, p.family).floor.index = 0;
    first = await creationBatcher(ctx, p.family).submit(p);
  }
  if (!first.authorized) await refuseUnauthorized(ctx, p);
  if (first.address !== null) {
    ctx.metrics.ordersCreated.inc();
    return {
      order: toMerchantOrder(ctx.config, newOrderRow(p, first.address, first.addressId), 0),
      created: true,
    };
  }
  if (first.picked) {
    // The insert met an existing (merchant, external_id): an idempotent replay or a conflict.
    const existing = await existingOrder(ctx, p);
    if (existing) return existing;
    throw new AppError("INTERNAL_ERROR", "order could not be created");
  }
  // The pool is empty (the filler is behind): a replay needs no address at all.
  const existing = await existingOrder(ctx, p);
  if (existing) return existing;
  wakePoolFiller(ctx);
  ctx.log.warn({ merchantId: p.merchantId, family: p.family }, "address pool empty, deriving inline");
  // A block derived and committed inline serves this creation and the others waiting with it
  // through the batched statement; a creation that keeps losing the fresh addresses to others
  // derives inside its own transaction at last, where it cannot lose.
  for (let round = 0; round < INLINE_ROUNDS; round++) {
    await replenishPoolInline(ctx, p.family);
    const again = await creationBatcher(ctx, p.family).submit(p);
    const done = await settled(ctx, p, again);
    if (done) return done;
  }
  const outcome = await ctx.db.transaction(async (tx) => {
    await deriveAddressInline(ctx, tx, p.family);
    const [outcome] = await insertOrders(ctx, tx, p.family, [p]);
    return outcome as InsertOutcome;
  });
  const done = await settled(ctx, p, outcome);
  if (done) return done;
  throw new AppError("INTERNAL_ERROR", "order could not be created");
}

/** The index this process's next claim in `family`'s pool starts at (for tests and diagnostics). */
export function claimFloorIndex(ctx: Context, family: ChainFamilyName = ctx.chains.primary.family): number {
  return poolCreation(ctx, family).floor.index;
}

/** Rounds of "derive a block inline, then the batched statement again" before the last resort. */
const INLINE_ROUNDS = 6;

/**
 * The result of a creation statement for `p`: the new order, the existing one of an idempotent
 * replay (or EXTERNAL_ID_CONFLICT, or the refusal of an unauthorized merchant), or undefined when
 * the statement found no free address.
 */
async function settled(
  ctx: Context,
  p: Prepared,
  outcome: InsertOutcome,
): Promise<CreateOrderResult | undefined> {
  if (!outcome.authorized) await refuseUnauthorized(ctx, p);
  if (outcome.address !== null) {
    ctx.metrics.ordersCreated.inc();
    return {
      order: toMerchantOrder(ctx.config, newOrderRow(p, outcome.address, outcome.addressId), 0),
      created: true,
    };
  }
  if (!outcome.picked) return undefined;
  const raced = await existingOrder(ctx, p);
  if (raced) return raced;
  throw new AppError("INTERNAL_ERROR", "order could not be created");
}
