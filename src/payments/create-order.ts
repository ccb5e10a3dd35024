/**
 * POST /api/v1/payments. One statement claims a free address (FOR UPDATE SKIP LOCKED), inserts the
 * order, binds the address to it and records order_created: a single short transaction with one
 * round trip, because order creation is the hot path. Creation is idempotent on
 * (merchant, external_id): a replay with the same amount, currency and callback_url returns the
 * existing order, anything else is EXTERNAL_ID_CONFLICT. Concurrent double submits meet at the
 * unique index; the loser's statement inserts nothing and re-reads the winner's order.
 */
import type { Context } from "../context.js";
import { preparedToSql, queryRows, runPrepared, type PreparedStatement } from "../db/query-rows.js";
import type { Executor } from "../db/connection.js";
import { sql } from "drizzle-orm";
import { AppError } from "../errors.js";
import { refuseStaleKey } from "../merchants/authenticate-merchant.js";
import { newId } from "../ids.js";
import { formatAmount, parseAmount } from "../money.js";
import type { OrderEventType } from "../orders/transitions.js";
import { deriveAddressInline } from "../wallet/derive-address-inline.js";
import { assertCallbackUrlAccepted } from "./callback-url.js";
import {
  findMerchantOrderByExternalId,
  toMerchantOrder,
  type MerchantOrder,
  type OrderRow,
} from "./merchant-order.js";

export const CURRENCIES = ["USDT"] as const;
export type Currency = (typeof CURRENCIES)[number];
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
  callbackUrl: string;
  metadata: Record<string, unknown> | null;
  now: Date;
  expiresAt: Date;
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
  const now = ctx.clock.now();
  return {
    id: newId(),
    merchantId: merchant.id,
    apiKeyHash: merchant.apiKeyHash ?? null,
    externalId: input.externalId,
    amount,
    currency: input.currency,
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
  address: string | null;
  addressId: number | null;
}

// Data-modifying CTEs run in one statement; the foreign keys (addresses.order_id,
// order_events.order_id) are checked at its end, when the order row exists. `picked` tells an
// empty pool (0) from an existing (merchant, external_id) (1, but nothing inserted). `authorized`
// re-checks the merchant in the same statement: active, and still holding the request's key.
// `derivation_index::bigint` matches the partial index addresses_free_claim_idx (migration 0002)
// and no other index, so a claim never walks past allocated addresses.
/** The claim, shared with the test that checks its plan uses addresses_free_claim_idx. */
export const CLAIM_FREE_ADDRESS = "SELECT id, address FROM addresses WHERE status = 'free'";
export const CLAIM_FREE_ADDRESS_ORDER = "ORDER BY derivation_index::bigint LIMIT 1 FOR UPDATE SKIP LOCKED";

const CREATE_ORDER: PreparedStatement = {
  name: "stablegate_create_order_v3",
  text: `
    WITH authorized AS (
      SELECT 1 FROM merchants
      WHERE id = $2::uuid AND is_active AND ($14::text IS NULL OR api_key_hash = $14::text)
    ), picked AS (
      ${CLAIM_FREE_ADDRESS} AND EXISTS (SELECT 1 FROM authorized)
      ${CLAIM_FREE_ADDRESS_ORDER}
    ), inserted AS (
      INSERT INTO orders (id, merchant_id, external_id, amount_expected, amount_received, currency,
        network, status, address, address_id, callback_url, metadata, expires_at, created_at, updated_at)
      SELECT $1::uuid, $2::uuid, $3::text, $4::numeric, 0, $5::text, $6::text, 'pending',
        picked.address, picked.id, $7::text, $8::jsonb, $9::timestamptz, $10::timestamptz, $10::timestamptz
      FROM picked
      ON CONFLICT (merchant_id, external_id) DO NOTHING
      RETURNING id, address, address_id
    ), bound AS (
      UPDATE addresses SET status = 'allocated', order_id = inserted.id, allocated_at = $10::timestamptz,
        released_at = NULL, quarantine_until = NULL
      FROM inserted WHERE addresses.id = inserted.address_id
    ), created_event AS (
      INSERT INTO order_events (id, order_id, event_type, payload, created_at)
      SELECT $11::uuid, inserted.id, $12::text, $13::jsonb, $10::timestamptz
      FROM inserted
    )
    SELECT (SELECT count(*) FROM authorized)::int AS authorized,
      (SELECT count(*) FROM picked)::int AS picked, inserted.address, inserted.address_id::text AS address_id
    FROM (SELECT 1) AS one LEFT JOIN inserted ON true`,
};

type CreateRow = { authorized: number; picked: number; address: string | null; address_id: string | null };

/** Runs the creation statement inside `tx`, or as a prepared statement on its own when omitted. */
async function insertOrder(ctx: Context, tx: Executor | undefined, p: Prepared): Promise<InsertOutcome> {
  const now = p.now.toISOString();
  const values = [
    p.id,
    p.merchantId,
    p.externalId,
    p.amount.toString(),
    p.currency,
    ctx.config.tronNetwork,
    p.callbackUrl,
    p.metadata === null ? null : JSON.stringify(p.metadata),
    p.expiresAt.toISOString(),
    now,
    newId(),
    CREATED_EVENT,
    JSON.stringify({ amount_expected: formatAmount(p.amount) }),
    p.apiKeyHash,
  ];
  const rows =
    tx === undefined
      ? await runPrepared<CreateRow>(ctx.database, CREATE_ORDER, values)
      : await queryRows<CreateRow>(tx, preparedToSql(CREATE_ORDER, values));
  const row = rows[0];
  return {
    authorized: Number(row?.authorized ?? 0) > 0,
    picked: Number(row?.picked ?? 0) > 0,
    address: row?.address ?? null,
    addressId: row?.address_id == null ? null : Number(row.address_id),
  };
}

function replay(p: Prepared, existing: OrderRow): void {
  const same =
    existing.amountExpected === p.amount &&
    existing.currency === p.currency &&
    existing.callbackUrl === p.callbackUrl;
  if (!same) {
    throw new AppError(
      "EXTERNAL_ID_CONFLICT",
      `external_id ${p.externalId} was already used with a different amount, currency or callback_url`,
    );
  }
}

function newOrderRow(ctx: Context, p: Prepared, address: string, addressId: number | null): OrderRow {
  return {
    id: p.id,
    merchantId: p.merchantId,
    externalId: p.externalId,
    amountExpected: p.amount,
    amountReceived: 0n,
    currency: p.currency,
    network: ctx.config.tronNetwork,
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
  const first = await insertOrder(ctx, undefined, p);
  if (!first.authorized) await refuseUnauthorized(ctx, p);
  if (first.address !== null) {
    return {
      order: toMerchantOrder(ctx.config, newOrderRow(ctx, p, first.address, first.addressId), 0),
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
  ctx.log.warn({ merchantId: p.merchantId }, "address pool empty, deriving inline");
  const outcome = await ctx.db.transaction(async (tx) => {
    await deriveAddressInline(ctx, tx);
    return insertOrder(ctx, tx, p);
  });
  if (!outcome.authorized) await refuseUnauthorized(ctx, p);
  if (outcome.address !== null) {
    return {
      order: toMerchantOrder(ctx.config, newOrderRow(ctx, p, outcome.address, outcome.addressId), 0),
      created: true,
    };
  }
  const raced = await existingOrder(ctx, p);
  if (raced) return raced;
  throw new AppError("INTERNAL_ERROR", "order could not be created");
}
