/**
 * Static deposit addresses and deposits as the merchant and admin APIs show them, and the queries
 * that read them. Confirmations of a deposit come from the scanner's cursor (cursor block - deposit
 * block + 1), like an order's.
 */
import { desc, eq, sql, type SQL } from "drizzle-orm";
import type { Config } from "../config.js";
import type { Executor } from "../db/connection.js";
import { depositAddresses, deposits, type DepositAddressStatus, type DepositStatus } from "../db/schema.js";
import { formatAmount } from "../money.js";
import { USDT_CURSOR } from "../payments/merchant-order.js";

export type DepositAddressRow = typeof depositAddresses.$inferSelect;
export type DepositRow = typeof deposits.$inferSelect;

export interface DepositAddressView {
  id: string;
  customer_ref: string;
  address: string;
  status: DepositAddressStatus;
  currency: string;
  network: string;
  callback_url: string;
  notify_detected: boolean;
  metadata: Record<string, unknown> | null;
  /** Confirmed deposits and their sum (reverted and unconfirmed ones are not counted). */
  deposit_count: number;
  total_received: string;
  created_at: string;
  updated_at: string;
  disabled_at: string | null;
}

export interface DepositView {
  id: string;
  deposit_address_id: string;
  customer_ref: string;
  address: string;
  amount: string;
  currency: string;
  network: string;
  tx_hash: string;
  log_index: number;
  from_address: string;
  block_number: number;
  status: DepositStatus;
  confirmations: number;
  below_minimum: boolean;
  address_status: DepositAddressStatus;
  swept: boolean;
  detected_at: string;
  confirmed_at: string | null;
  reverted_at: string | null;
  created_at: string;
}

export const CURRENCY = "USDT";

/** Confirmed deposit count and sum of the outer deposit_addresses row. */
const totalsSql = sql<string>`(SELECT count(*)::text || ':' || coalesce(sum(d.amount), 0)::text
    FROM deposits d WHERE d.deposit_address_id = "deposit_addresses"."id" AND d.status = 'confirmed')`.as(
  "totals",
);

export function toDepositAddressView(
  config: Config,
  row: DepositAddressRow,
  totals: string,
): DepositAddressView {
  const [count, sum] = totals.split(":");
  return {
    id: row.id,
    customer_ref: row.customerRef,
    address: row.address,
    status: row.status,
    currency: CURRENCY,
    network: config.tronNetwork,
    callback_url: row.callbackUrl,
    notify_detected: row.notifyDetected,
    metadata: row.metadata ?? null,
    deposit_count: Number(count ?? "0"),
    total_received: formatAmount(BigInt(sum ?? "0")),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    disabled_at: row.disabledAt?.toISOString() ?? null,
  };
}

export async function selectDepositAddresses(
  db: Executor,
  config: Config,
  where: SQL | undefined,
  page: { limit: number; offset: number } = { limit: 1, offset: 0 },
): Promise<(DepositAddressView & { merchant_id: string })[]> {
  const rows = await db
    .select({ row: depositAddresses, totals: totalsSql })
    .from(depositAddresses)
    .where(where)
    .orderBy(desc(depositAddresses.createdAt), desc(depositAddresses.id))
    .limit(page.limit)
    .offset(page.offset);
  return rows.map(({ row, totals }) => ({
    ...toDepositAddressView(config, row, totals),
    merchant_id: row.merchantId,
  }));
}

export async function countDepositAddresses(db: Executor, where: SQL | undefined): Promise<number> {
  const [row] = await db
    .select({ n: sql<string>`count(*)::text` })
    .from(depositAddresses)
    .where(where);
  return Number(row?.n ?? "0");
}

const depositConfirmationsSql = sql<number>`greatest(0, coalesce(
    (SELECT c.block_number FROM scanner_cursor c WHERE c.name = ${USDT_CURSOR})
    - "deposits"."block_number" + 1, 0))::int`
  .mapWith(Number)
  .as("confirmations");

export function toDepositView(
  config: Config,
  row: DepositRow,
  customerRef: string,
  confirmations: number,
): DepositView {
  return {
    id: row.id,
    deposit_address_id: row.depositAddressId,
    customer_ref: customerRef,
    address: row.toAddress,
    amount: formatAmount(row.amount),
    currency: CURRENCY,
    network: config.tronNetwork,
    tx_hash: row.txHash,
    log_index: row.logIndex,
    from_address: row.fromAddress,
    block_number: row.blockNumber,
    status: row.status,
    // A reverted deposit is in no chain: it has no confirmations.
    confirmations: row.status === "reverted" ? 0 : confirmations,
    below_minimum: row.belowMinimum,
    address_status: row.addressStatus,
    swept: row.settlementId !== null,
    detected_at: row.detectedAt.toISOString(),
    confirmed_at: row.confirmedAt?.toISOString() ?? null,
    reverted_at: row.revertedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

export async function selectDeposits(
  db: Executor,
  config: Config,
  where: SQL | undefined,
  page: { limit: number; offset: number } = { limit: 1, offset: 0 },
): Promise<(DepositView & { merchant_id: string })[]> {
  const rows = await db
    .select({
      row: deposits,
      customerRef: depositAddresses.customerRef,
      confirmations: depositConfirmationsSql,
    })
    .from(deposits)
    .innerJoin(depositAddresses, eq(depositAddresses.id, deposits.depositAddressId))
    .where(where)
    .orderBy(desc(deposits.createdAt), desc(deposits.id))
    .limit(page.limit)
    .offset(page.offset);
  return rows.map(({ row, customerRef, confirmations }) => ({
    ...toDepositView(config, row, customerRef, confirmations),
    merchant_id: row.merchantId,
  }));
}

export async function countDeposits(db: Executor, where: SQL | undefined): Promise<number> {
  const [row] = await db
    .select({ n: sql<string>`count(*)::text` })
    .from(deposits)
    .innerJoin(depositAddresses, eq(depositAddresses.id, deposits.depositAddressId))
    .where(where);
  return Number(row?.n ?? "0");
}
