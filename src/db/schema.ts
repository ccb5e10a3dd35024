/**
 * Drizzle mirror of migrations/*.sql. The SQL files are the source of truth (they run in
 * production); test/db/schema.test.ts checks that every column declared here exists in the
 * migrated database with a compatible type.
 */
import type { ChainId, Currency } from "../chains/chain-types.js";
import {
  bigint,
  boolean,
  date,
  integer,
  jsonb,
  numeric,
  pgTable,
  smallint,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { CHAIN_FAMILIES } from "../chains/chain-types.js";

const money = (name: string) => numeric(name, { precision: 38, scale: 0, mode: "bigint" });
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const merchants = pgTable("merchants", {
  id: uuid("id").primaryKey(),
  name: text("name").notNull(),
  apiKeyHash: text("api_key_hash").notNull().unique(),
  apiKeyPrefix: text("api_key_prefix").notNull(),
  webhookSecret: text("webhook_secret").notNull(),
  /** The operator who created or last rotated the API key (migration 0019); null: no operator saw it. */
  apiKeyIssuedBy: text("api_key_issued_by"),
  isActive: boolean("is_active").notNull().default(true),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

export const addresses = pgTable("addresses", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  /** The chain family whose pool holds it (`tron` | `evm`, migration 0022): indexes are per family. */
  family: text("family", { enum: CHAIN_FAMILIES }).notNull().default("tron"),
  /** The order branch's index (m/44'/195'/0'/0/i, EVM m/44'/60'/0'/0/i); null on a static address. */
  derivationIndex: integer("derivation_index"),
  /** The static branch's index (m/44'/195'/0'/1/i, migration 0012); null on an order address. */
  staticIndex: integer("static_index"),
  address: text("address").notNull().unique(),
  status: text("status", { enum: ["free", "allocated", "static"] })
    .notNull()
    .default("free"),
  orderId: uuid("order_id"),
  /** the order it last belonged to (kept on release; migration 0010) */
  lastOrderId: uuid("last_order_id"),
  allocatedAt: ts("allocated_at"),
  releasedAt: ts("released_at"),
  quarantineUntil: ts("quarantine_until"),
  createdAt: ts("created_at").notNull(),
});

import { ORDER_STATUSES, type OrderStatus } from "../orders/order-statuses.js";

export { ORDER_STATUSES, type OrderStatus };

export const orders = pgTable("orders", {
  id: uuid("id").primaryKey(),
  merchantId: uuid("merchant_id")
    .notNull()
    .references(() => merchants.id),
  externalId: text("external_id").notNull(),
  amountExpected: money("amount_expected").notNull(),
  amountReceived: money("amount_received").notNull().default(0n),
  currency: text("currency").notNull().default("USDT"),
  /** The chain the order is paid on (migration 0021); `network` is that chain's network name. */
  chain: text("chain").notNull().default("tron"),
  network: text("network").notNull(),
  status: text("status", { enum: ORDER_STATUSES }).notNull(),
  address: text("address").notNull(),
  addressId: bigint("address_id", { mode: "number" }).references(() => addresses.id),
  txHash: text("tx_hash"),
  fromAddress: text("from_address"),
  callbackUrl: text("callback_url").notNull(),
  metadata: jsonb("metadata").$type<Record<string, unknown> | null>(),
  expiresAt: ts("expires_at").notNull(),
  detectedAt: ts("detected_at"),
  confirmedAt: ts("confirmed_at"),
  completedAt: ts("completed_at"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

export const orderEvents = pgTable("order_events", {
  id: uuid("id").primaryKey(),
  orderId: uuid("order_id")
    .notNull()
    .references(() => orders.id),
  eventType: text("event_type").notNull(),
  payload: jsonb("payload").$type<Record<string, unknown>>().notNull().default({}),
  createdAt: ts("created_at").notNull(),
});

export const transfers = pgTable("transfers", {
  id: uuid("id").primaryKey(),
  orderId: uuid("order_id")
    .notNull()
    .references(() => orders.id),
  txHash: text("tx_hash").notNull(),
  logIndex: integer("log_index").notNull(),
  blockNumber: bigint("block_number", { mode: "number" }).notNull(),
  blockHash: text("block_hash").notNull(),
  blockTimestamp: ts("block_timestamp").notNull(),
  fromAddress: text("from_address").notNull(),
  toAddress: text("to_address").notNull(),
  amount: money("amount").notNull(),
  /** The chain the transfer was seen on (migration 0021). */
  chain: text("chain").notNull().default("tron"),
  /** What an 18-decimal transfer carried below one micro-unit, in the token's units (never credited). */
  remainder: money("remainder").notNull().default(0n),
  status: text("status", { enum: ["seen", "confirmed"] })
    .notNull()
    .default("seen"),
  confirmedAt: ts("confirmed_at"),
  createdAt: ts("created_at").notNull(),
});

export const STRAY_RESOLUTIONS = ["attached", "dismissed", "refunded"] as const;
export type StrayResolution = (typeof STRAY_RESOLUTIONS)[number];

/** Transfers to an address no order held (migration 0010, DESIGN.md 4 and 13). */
export const strayTransfers = pgTable("stray_transfers", {
  id: uuid("id").primaryKey(),
  addressId: bigint("address_id", { mode: "number" })
    .notNull()
    .references(() => addresses.id),
  txHash: text("tx_hash").notNull(),
  logIndex: integer("log_index").notNull(),
  blockNumber: bigint("block_number", { mode: "number" }).notNull(),
  blockHash: text("block_hash").notNull(),
  blockTimestamp: ts("block_timestamp").notNull(),
  fromAddress: text("from_address").notNull(),
  toAddress: text("to_address").notNull(),
  amount: money("amount").notNull(),
  /** The chain the transfer was seen on (migration 0021). */
  chain: text("chain").notNull().default("tron"),
  /** What an 18-decimal transfer carried below one micro-unit, in token units (migration 0033); never credited. */
  remainder: money("remainder").notNull().default(0n),
  /** The token's decimals (migration 0033): the remainder is in units of 10^-token_decimals. */
  tokenDecimals: smallint("token_decimals").notNull().default(6),
  /** The token's currency as the scanner saw it (migration 0030; older rows USDT). */
  currency: text("currency").$type<Currency>().notNull().default("USDT"),
  status: text("status", { enum: ["seen", "confirmed"] })
    .notNull()
    .default("seen"),
  confirmedAt: ts("confirmed_at"),
  previousOrderId: uuid("previous_order_id").references(() => orders.id),
  resolution: text("resolution", { enum: STRAY_RESOLUTIONS }),
  orderId: uuid("order_id").references(() => orders.id),
  resolutionReason: text("resolution_reason"),
  resolvedBy: jsonb("resolved_by").$type<Record<string, unknown> | null>(),
  resolvedAt: ts("resolved_at"),
  createdAt: ts("created_at").notNull(),
});

export const WEBHOOK_DELIVERY_STATUSES = ["pending", "delivered", "failed", "superseded"] as const;

export const webhookDeliveries = pgTable("webhook_deliveries", {
  id: uuid("id").primaryKey(),
  // NULL for refund and payout webhooks (migration 0011), which set payout_id instead, and for
  // deposit webhooks (migration 0012), which set deposit_id
  orderId: uuid("order_id").references(() => orders.id),
  merchantId: uuid("merchant_id")
    .notNull()
    .references(() => merchants.id),
  orderEventId: uuid("order_event_id").references(() => orderEvents.id),
  depositId: uuid("deposit_id").references(() => deposits.id),
  payoutId: uuid("payout_id"),
  payoutEventId: uuid("payout_event_id"),
  callbackUrl: text("callback_url"),
  event: text("event").notNull(),
  idempotencyKey: text("idempotency_key").notNull(),
  payload: text("payload").notNull(),
  status: text("status", { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default("pending"),
  attempts: integer("attempts").notNull().default(0),
  maxAttempts: integer("max_attempts").notNull().default(10),
  nextAttemptAt: ts("next_attempt_at").notNull(),
  leaseExpiresAt: ts("lease_expires_at"),
  leaseOwner: text("lease_owner"),
  callbackUrlOverride: text("callback_url_override"),
  lastError: text("last_error"),
  lastStatusCode: integer("last_status_code"),
  deliveredAt: ts("delivered_at"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

export const webhookAttempts = pgTable("webhook_attempts", {
  id: uuid("id").primaryKey(),
  deliveryId: uuid("delivery_id")
    .notNull()
    .references(() => webhookDeliveries.id),
  attempt: integer("attempt").notNull(),
  url: text("url").notNull(),
  startedAt: ts("started_at").notNull(),
  durationMs: integer("duration_ms").notNull(),
  statusCode: integer("status_code"),
  error: text("error"),
  success: boolean("success").notNull(),
});

export const SETTLEMENT_STATUSES = ["waiting", "active", "completed", "failed"] as const;

export const settlements = pgTable("settlements", {
  id: uuid("id").primaryKey(),
  /** null: an address-level settlement (a stray balance; see addressId) */
  orderId: uuid("order_id")
    .unique()
    .references(() => orders.id),
  addressId: bigint("address_id", { mode: "number" }).references(() => addresses.id),
  address: text("address").notNull(),
  status: text("status", { enum: SETTLEMENT_STATUSES }).notNull(),
  step: text("step"),
  amount: money("amount"),
  feeTrx: money("fee_trx"),
  feeTxHash: text("fee_tx_hash"),
  feeTxSigned: jsonb("fee_tx_signed"),
  sweepTxHash: text("sweep_tx_hash"),
  sweepTxSigned: jsonb("sweep_tx_signed"),
  coldWalletAddress: text("cold_wallet_address"),
  attempts: integer("attempts").notNull().default(0),
  lastError: text("last_error"),
  nextAttemptAt: ts("next_attempt_at"),
  leaseExpiresAt: ts("lease_expires_at"),
  leaseOwner: text("lease_owner"),
  sweptAt: ts("swept_at"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
  mode: text("mode", { enum: ["burn", "delegate", "topup", "7702"] }),
  round: integer("round").notNull().default(1),
  queuedAt: ts("queued_at"),
  /** The chain the address is swept on (migration 0031). */
  chain: text("chain").notNull().default("tron"),
});

export const SWEEP_TX_KINDS = ["fund", "activate", "delegate", "sweep", "undelegate", "reclaim"] as const;
export const SWEEP_TX_STATES = ["signed", "sent", "included", "solid", "failed", "expired"] as const;

export const sweepTransactions = pgTable("sweep_transactions", {
  txHash: text("tx_hash").primaryKey(),
  settlementId: uuid("settlement_id").references(() => settlements.id),
  round: integer("round").notNull(),
  kind: text("kind", { enum: SWEEP_TX_KINDS }).notNull(),
  address: text("address").notNull(),
  signed: jsonb("signed").notNull(),
  createsAccount: boolean("creates_account").notNull().default(false),
  stakeSun: money("stake_sun"),
  energy: bigint("energy", { mode: "bigint" }),
  state: text("state", { enum: SWEEP_TX_STATES }).notNull().default("signed"),
  feeSun: money("fee_sun"),
  energyFeeSun: money("energy_fee_sun"),
  netFeeSun: money("net_fee_sun"),
  energyUsed: bigint("energy_used", { mode: "bigint" }),
  netUsage: bigint("net_usage", { mode: "bigint" }),
  createdAt: ts("created_at").notNull(),
  landedAt: ts("landed_at"),
  /** Rounds in a row whose pinned node was past its expiration and lacked it (migration 0024). */
  missingSeenCount: integer("missing_seen_count").notNull().default(0),
  missingSeenAt: ts("missing_seen_at"),
});

export const sweepCosts = pgTable("sweep_costs", {
  settlementId: uuid("settlement_id")
    .notNull()
    .references(() => settlements.id),
  round: integer("round").notNull(),
  orderId: uuid("order_id").references(() => orders.id),
  addressId: bigint("address_id", { mode: "number" }).references(() => addresses.id),
  mode: text("mode", { enum: ["burn", "delegate"] }).notNull(),
  freshAddress: boolean("fresh_address").notNull(),
  amount: money("amount").notNull(),
  trxBurnt: money("trx_burnt").notNull(),
  activationTrx: money("activation_trx").notNull(),
  energyDelegated: bigint("energy_delegated", { mode: "bigint" }).notNull(),
  energyUsed: bigint("energy_used", { mode: "bigint" }).notNull(),
  transactions: integer("transactions").notNull(),
  queuedAt: ts("queued_at").notNull(),
  sweptAt: ts("swept_at").notNull(),
  finishedAt: ts("finished_at").notNull(),
});

export const loginAttempts = pgTable("login_attempts", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  clientIp: text("client_ip").notNull(),
  success: boolean("success").notNull(),
  attemptedAt: ts("attempted_at").notNull(),
  /** The account tried: a named operator's lower-cased email, "owner" for the built-in owner (NULL in rows before it was counted). */
  account: text("account"),
});

export const scannerCursor = pgTable("scanner_cursor", {
  name: text("name").primaryKey(),
  blockNumber: bigint("block_number", { mode: "number" }).notNull(),
  blockHash: text("block_hash").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

/** Primary key (chain, block_number), migration 0023. */
export const scannedBlocks = pgTable("scanned_blocks", {
  chain: text("chain").notNull().default("tron"),
  blockNumber: bigint("block_number", { mode: "number" }).notNull(),
  blockHash: text("block_hash").notNull(),
  parentHash: text("parent_hash").notNull(),
  scannedAt: ts("scanned_at").notNull(),
});

export const appState = pgTable("app_state", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

/**
 * Rollups of migration 0004, maintained by triggers on orders and order_events (never written here);
 * keyed by the order's chain and currency too since migration 0033.
 */
export const orderRollupsDaily = pgTable("order_rollups_daily", {
  day: date("day", { mode: "string" }).notNull(),
  merchantId: uuid("merchant_id").notNull(),
  status: text("status").notNull(),
  chain: text("chain").notNull().default("tron"),
  currency: text("currency").notNull().default("USDT"),
  orderCount: bigint("order_count", { mode: "bigint" }).notNull(),
  amountReceived: money("amount_received").notNull(),
  paidInFullCount: bigint("paid_in_full_count", { mode: "bigint" }).notNull(),
});

export const orderRollupsTotal = pgTable("order_rollups_total", {
  merchantId: uuid("merchant_id").notNull(),
  status: text("status").notNull(),
  chain: text("chain").notNull().default("tron"),
  currency: text("currency").notNull().default("USDT"),
  orderCount: bigint("order_count", { mode: "bigint" }).notNull(),
  amountReceived: money("amount_received").notNull(),
  paidInFullCount: bigint("paid_in_full_count", { mode: "bigint" }).notNull(),
});

export const merchantIncidents = pgTable("merchant_incidents", {
  eventId: uuid("event_id").primaryKey(),
  merchantId: uuid("merchant_id").notNull(),
  createdAt: ts("created_at").notNull(),
});

// Migration 0011: the merchant ledger, refunds and payouts (DESIGN.md 14).
export const ledgerTransactions = pgTable("ledger_transactions", {
  id: bigint("id", { mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
  kind: text("kind").notNull(),
  merchantId: uuid("merchant_id")
    .notNull()
    .references(() => merchants.id),
  refType: text("ref_type").notNull(),
  refId: text("ref_id").notNull(),
  createdAt: ts("created_at").notNull(),
});

export const ledgerPostings = pgTable("ledger_postings", {
  txnId: bigint("txn_id", { mode: "bigint" })
    .notNull()
    .references(() => ledgerTransactions.id),
  merchantId: uuid("merchant_id").notNull(),
  account: text("account", { enum: ["available", "reserved", "received", "paid_out"] }).notNull(),
  amount: money("amount").notNull(),
  /** The currency of the money the posting moves (migration 0030). */
  currency: text("currency").$type<Currency>().notNull(),
});

/** One row per merchant and currency (migration 0030: primary key (merchant_id, currency)). */
export const merchantBalances = pgTable("merchant_balances", {
  merchantId: uuid("merchant_id")
    .notNull()
    .references(() => merchants.id),
  currency: text("currency").$type<Currency>().notNull(),
  available: money("available").notNull().default(0n),
  reserved: money("reserved").notNull().default(0n),
  paidOut: money("paid_out").notNull().default(0n),
  updatedAt: ts("updated_at").notNull(),
});

export const PAYOUT_KINDS = ["refund", "payout"] as const;
export const PAYOUT_STATUSES = [
  "awaiting_address",
  "pending_approval",
  "approved",
  "sending",
  "completed",
  "failed",
  "rejected",
  "cancelled",
] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

export const payouts = pgTable("payouts", {
  id: uuid("id").primaryKey(),
  merchantId: uuid("merchant_id")
    .notNull()
    .references(() => merchants.id),
  kind: text("kind", { enum: PAYOUT_KINDS }).notNull(),
  status: text("status", { enum: PAYOUT_STATUSES }).notNull(),
  externalId: text("external_id"),
  orderId: uuid("order_id").references(() => orders.id),
  strayTransferId: uuid("stray_transfer_id"),
  amount: money("amount").notNull(),
  /** The chain it is paid on and the currency it draws (migration 0029). */
  chain: text("chain").$type<ChainId>().notNull().default("tron"),
  currency: text("currency").$type<Currency>().notNull().default("USDT"),
  /** The chain's network name at creation; null on rows older than 0029 (TRON's network). */
  network: text("network"),
  address: text("address"),
  reason: text("reason"),
  callbackUrl: text("callback_url"),
  metadata: jsonb("metadata").$type<Record<string, unknown> | null>(),
  createdByKind: text("created_by_kind", { enum: ["merchant", "operator", "system"] }).notNull(),
  createdById: text("created_by_id"),
  createdByLabel: text("created_by_label").notNull(),
  /** The issuer of the merchant API key it was created with (migration 0019): never its approver. */
  apiKeyIssuedBy: text("api_key_issued_by"),
  decidedById: text("decided_by_id"),
  decidedByLabel: text("decided_by_label"),
  decidedAt: ts("decided_at"),
  autoApproved: boolean("auto_approved").notNull().default(false),
  claimTokenHash: text("claim_token_hash").unique(),
  claimExpiresAt: ts("claim_expires_at"),
  claimedAt: ts("claimed_at"),
  txHash: text("tx_hash"),
  trxBurntSun: money("trx_burnt_sun"),
  energyUsed: bigint("energy_used", { mode: "bigint" }),
  /** EVM: the gas its landed transactions cost, wei (migration 0034); null on TRON and until it ends. */
  gasCostWei: numeric("gas_cost_wei", { precision: 78, scale: 0, mode: "bigint" }),
  attempts: integer("attempts").notNull().default(0),
  lastError: text("last_error"),
  /** why an approved payout waits (src/payouts/payout-float.ts); null when it waits for nothing */
  waitReason: text("wait_reason", { enum: ["float_low"] }),
  nextAttemptAt: ts("next_attempt_at"),
  leaseOwner: text("lease_owner"),
  leaseExpiresAt: ts("lease_expires_at"),
  approvedAt: ts("approved_at"),
  sentAt: ts("sent_at"),
  completedAt: ts("completed_at"),
  failedAt: ts("failed_at"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

export const payoutEvents = pgTable("payout_events", {
  id: uuid("id").primaryKey(),
  payoutId: uuid("payout_id")
    .notNull()
    .references(() => payouts.id),
  eventType: text("event_type").notNull(),
  fromStatus: text("from_status"),
  toStatus: text("to_status"),
  actor: jsonb("actor").$type<Record<string, unknown> | null>(),
  payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
  createdAt: ts("created_at").notNull(),
});

export const PAYOUT_TX_STATES = ["signed", "sent", "solid", "failed", "expired"] as const;

export const payoutTransactions = pgTable("payout_transactions", {
  txHash: text("tx_hash").primaryKey(),
  payoutId: uuid("payout_id")
    .notNull()
    .references(() => payouts.id),
  attempt: integer("attempt").notNull(),
  signed: jsonb("signed").notNull(),
  expirationMs: bigint("expiration_ms", { mode: "number" }).notNull(),
  mode: text("mode", { enum: ["burn", "delegate"] }).notNull(),
  state: text("state", { enum: PAYOUT_TX_STATES }).notNull().default("signed"),
  result: text("result"),
  feeSun: money("fee_sun"),
  energyFeeSun: money("energy_fee_sun"),
  netFeeSun: money("net_fee_sun"),
  energyUsed: bigint("energy_used", { mode: "bigint" }),
  netUsage: bigint("net_usage", { mode: "bigint" }),
  blockNumber: bigint("block_number", { mode: "number" }),
  createdAt: ts("created_at").notNull(),
  landedAt: ts("landed_at"),
  /** First seen in a block of the head chain (migration 0015); NULL while in none. */
  includedAt: ts("included_at"),
  /** Rounds in a row whose pinned node was past its expiration and lacked it (migration 0024). */
  missingSeenCount: integer("missing_seen_count").notNull().default(0),
  missingSeenAt: ts("missing_seen_at"),
});

import {
  DEPOSIT_ADDRESS_STATUSES,
  DEPOSIT_STATUSES,
  type DepositAddressStatus,
  type DepositStatus,
} from "../deposits/deposit-statuses.js";

export { DEPOSIT_ADDRESS_STATUSES, DEPOSIT_STATUSES, type DepositAddressStatus, type DepositStatus };

/** Static deposit addresses (migration 0012, DESIGN.md 15). */
export const depositAddresses = pgTable("deposit_addresses", {
  id: uuid("id").primaryKey(),
  merchantId: uuid("merchant_id")
    .notNull()
    .references(() => merchants.id),
  customerRef: text("customer_ref").notNull(),
  /**
   * The chain family whose static branch derived it (migration 0032): one address per customer per
   * family, serving every enabled chain of the family.
   */
  family: text("family", { enum: CHAIN_FAMILIES }).notNull().default("tron"),
  /** The chain and currency it was asked for at creation (migration 0032). */
  chain: text("chain").notNull().default("tron"),
  currency: text("currency").notNull().default("USDT"),
  addressId: bigint("address_id", { mode: "number" })
    .notNull()
    .unique()
    .references(() => addresses.id),
  address: text("address").notNull().unique(),
  status: text("status", { enum: DEPOSIT_ADDRESS_STATUSES }).notNull().default("active"),
  callbackUrl: text("callback_url").notNull(),
  metadata: jsonb("metadata").$type<Record<string, unknown> | null>(),
  notifyDetected: boolean("notify_detected").notNull().default(false),
  disabledAt: ts("disabled_at"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

export const deposits = pgTable("deposits", {
  id: uuid("id").primaryKey(),
  depositAddressId: uuid("deposit_address_id")
    .notNull()
    .references(() => depositAddresses.id),
  merchantId: uuid("merchant_id")
    .notNull()
    .references(() => merchants.id),
  txHash: text("tx_hash").notNull(),
  logIndex: integer("log_index").notNull(),
  blockNumber: bigint("block_number", { mode: "number" }).notNull(),
  blockHash: text("block_hash").notNull(),
  blockTimestamp: ts("block_timestamp").notNull(),
  fromAddress: text("from_address").notNull(),
  toAddress: text("to_address").notNull(),
  amount: money("amount").notNull(),
  /** The chain the deposit was seen on (migration 0021). */
  chain: text("chain").notNull().default("tron"),
  /** The token it was paid in (migration 0032). */
  currency: text("currency").notNull().default("USDT"),
  /** What an 18-decimal token carried below one micro-unit, in token units (migration 0038); never credited. */
  remainder: money("remainder").notNull().default(0n),
  /** The token's decimals (migration 0038): the remainder is in units of 10^-token_decimals. */
  tokenDecimals: smallint("token_decimals").notNull().default(6),
  status: text("status", { enum: DEPOSIT_STATUSES }).notNull(),
  belowMinimum: boolean("below_minimum").notNull(),
  addressStatus: text("address_status", { enum: DEPOSIT_ADDRESS_STATUSES }).notNull(),
  settlementId: uuid("settlement_id"),
  sweepRound: integer("sweep_round"),
  detectedAt: ts("detected_at").notNull(),
  confirmedAt: ts("confirmed_at"),
  revertedAt: ts("reverted_at"),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

export const depositEvents = pgTable("deposit_events", {
  id: uuid("id").primaryKey(),
  depositId: uuid("deposit_id")
    .notNull()
    .references(() => deposits.id),
  eventType: text("event_type").notNull(),
  payload: jsonb("payload").$type<Record<string, unknown>>().notNull().default({}),
  createdAt: ts("created_at").notNull(),
});

export const OPERATOR_ROLES = ["owner", "admin", "support", "viewer"] as const;

export const operators = pgTable("operators", {
  id: uuid("id").primaryKey(),
  email: text("email"),
  name: text("name").notNull(),
  role: text("role", { enum: OPERATOR_ROLES }).notNull(),
  isBuiltin: boolean("is_builtin").notNull().default(false),
  isActive: boolean("is_active").notNull().default(true),
  passwordHash: text("password_hash"),
  invitationHash: text("invitation_hash"),
  invitationExpiresAt: ts("invitation_expires_at"),
  totpSecretEnc: text("totp_secret_enc"),
  totpPendingSecretEnc: text("totp_pending_secret_enc"),
  totpEnabled: boolean("totp_enabled").notNull().default(false),
  totpLastStep: bigint("totp_last_step", { mode: "number" }),
  createdAt: ts("created_at").notNull(),
  updatedAt: ts("updated_at").notNull(),
});

export const operatorRecoveryCodes = pgTable("operator_recovery_codes", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  operatorId: uuid("operator_id").notNull(),
  codeHash: text("code_hash").notNull().unique(),
  usedAt: ts("used_at"),
  createdAt: ts("created_at").notNull(),
});

export const operatorFactorFailures = pgTable("operator_factor_failures", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  operatorId: uuid("operator_id").notNull(),
  failedAt: ts("failed_at").notNull(),
  context: text("context", { enum: ["login", "step_up", "password"] }).notNull(),
});

export const operatorPasskeys = pgTable("operator_passkeys", {
  id: uuid("id").primaryKey(),
  operatorId: uuid("operator_id").notNull(),
  credentialId: text("credential_id").notNull().unique(),
  publicKey: text("public_key").notNull(),
  counter: bigint("counter", { mode: "number" }).notNull().default(0),
  transports: text("transports").array().notNull().default([]),
  name: text("name").notNull(),
  createdAt: ts("created_at").notNull(),
  lastUsedAt: ts("last_used_at"),
});

export const webauthnUsedChallenges = pgTable("webauthn_used_challenges", {
  challenge: text("challenge").primaryKey(),
  expiresAt: ts("expires_at").notNull(),
});

export const operatorSessions = pgTable("operator_sessions", {
  id: uuid("id").primaryKey(),
  operatorId: uuid("operator_id").notNull(),
  createdAt: ts("created_at").notNull(),
  expiresAt: ts("expires_at").notNull(),
  lastSeenAt: ts("last_seen_at").notNull(),
  revokedAt: ts("revoked_at"),
  revokedReason: text("revoked_reason"),
  ip: text("ip"),
  userAgent: text("user_agent"),
});

export const AUDIT_ACTOR_KINDS = ["operator", "merchant", "system"] as const;

export const auditLog = pgTable("audit_log", {
  seq: bigint("seq", { mode: "number" }).primaryKey(),
  id: uuid("id").notNull().unique(),
  createdAt: ts("created_at").notNull(),
  actorKind: text("actor_kind", { enum: AUDIT_ACTOR_KINDS }).notNull(),
  actorId: text("actor_id"),
  actorLabel: text("actor_label").notNull(),
  action: text("action").notNull(),
  targetType: text("target_type"),
  targetId: text("target_id"),
  before: jsonb("before").$type<Record<string, unknown>>(),
  after: jsonb("after").$type<Record<string, unknown>>(),
  reason: text("reason"),
  ip: text("ip"),
  userAgent: text("user_agent"),
  prevHash: text("prev_hash").notNull(),
  hash: text("hash").notNull(),
});

export const auditChainHead = pgTable("audit_chain_head", {
  id: boolean("id").primaryKey().default(true),
  seq: bigint("seq", { mode: "number" }).notNull(),
  hash: text("hash").notNull(),
});
