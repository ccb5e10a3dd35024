/**
 * Static deposit addresses and deposits as the merchant and admin APIs show them, and the queries
 * that read them. Confirmations of a deposit come from its own chain's scanner cursor (cursor block
 * - deposit block + 1), like an order's. Addresses are shown in their family's display form (EVM:
 * EIP-55), stored as the scanner matches them (EVM: lowercase).
 */
import { desc, eq, sql, type SQL } from "drizzle-orm";
import { displayAddress } from "../chains/address-display.js";
import {
  CHAIN_IDS,
  isChainId,
  type ChainFamilyName,
  type ChainId,
  type Currency,
} from "../chains/chain-types.js";
import type { ChainRegistry } from "../chains/registry.js";
import { formatUnits } from "../chains/token-units.js";
import { cursorName } from "../chain/cursor.js";
import type { Config } from "../config.js";
import type { Executor } from "../db/connection.js";
import { depositAddresses, deposits, type DepositAddressStatus, type DepositStatus } from "../db/schema.js";
import { formatAmount } from "../money.js";

/** What the views need of the context: the configuration and the enabled chains. */
export interface ViewContext {
  config: Config;
  chains: ChainRegistry;
}

/**
 * The network name of `chain` (SPEC's `network`): the enabled chain's; for a chain disabled since
 * the row was written, TRON's configured network (rows from before chains were TRON's), as payouts do.
 */
export function chainNetwork(view: ViewContext, chain: string): string {
  const enabled = isChainId(chain) ? view.chains.get(chain) : undefined;
  return enabled?.network ?? view.config.tronNetwork;
}

export type DepositAddressRow = typeof depositAddresses.$inferSelect;
export type DepositRow = typeof deposits.$inferSelect;

export interface DepositAddressView {
  id: string;
  customer_ref: string;
  address: string;
  status: DepositAddressStatus;
  /** The chain and currency it was asked for at creation; `network` is that chain's network. */
  chain: ChainId;
  currency: Currency;
  network: string;
  /** Every enabled chain of its family: deposits on each of them are credited to it. */
  chains: ChainId[];
  /** Every currency those chains take. */
  currencies: Currency[];
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
  /**
   * What an 18-decimal token carried below one micro-unit, as an exact decimal of the token's
   * decimals ("0.000000500000000000"; "0.000000" for a 6-decimal token): kept, never credited.
   */
  remainder: string;
  currency: Currency;
  /** The chain the deposit was paid on; `network` is that chain's network. */
  chain: ChainId;
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

/** The enabled chains of `family`, and the currencies they take (in CURRENCIES order). */
function familyReach(
  view: ViewContext,
  family: ChainFamilyName,
): { chains: ChainId[]; currencies: Currency[] } {
  const chains = view.chains.list.filter((c) => c.family === family);
  const taken = new Set(chains.flatMap((c) => c.currencies));
  return {
    chains: chains.map((c) => c.id),
    currencies: (["USDT", "USDC"] as const).filter((c) => taken.has(c)),
  };
}

/** Confirmed deposit count and sum of the outer deposit_addresses row. */
const totalsSql = sql<string>`(SELECT count(*)::text || ':' || coalesce(sum(d.amount), 0)::text
    FROM deposits d WHERE d.deposit_address_id = "deposit_addresses"."id" AND d.status = 'confirmed')`.as(
  "totals",
);

export function toDepositAddressView(
  view: ViewContext,
  row: DepositAddressRow,
  totals: string,
): DepositAddressView {
  const [count, sum] = totals.split(":");
  return {
    id: row.id,
    customer_ref: row.customerRef,
    address: displayAddress(row.chain, row.address),
    status: row.status,
    chain: row.chain as ChainId,
    currency: row.currency as Currency,
    network: chainNetwork(view, row.chain),
    ...familyReach(view, row.family),
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
  view: ViewContext,
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
    ...toDepositAddressView(view, row, totals),
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

/** The scanner_cursor row of the deposit's own chain (cursor.ts, cursorName), as SQL. */
const depositCursorName = sql.raw(
  `CASE "deposits"."chain" ${CHAIN_IDS.map((id) => `WHEN '${id}' THEN '${cursorName(id)}'`).join(" ")} END`,
);

const depositConfirmationsSql = sql<number>`greatest(0, coalesce(
    (SELECT c.block_number FROM scanner_cursor c WHERE c.name = ${depositCursorName})
    - "deposits"."block_number" + 1, 0))::int`
  .mapWith(Number)
  .as("confirmations");

export function toDepositView(
  view: ViewContext,
  row: DepositRow,
  customerRef: string,
  confirmations: number,
): DepositView {
  return {
    id: row.id,
    deposit_address_id: row.depositAddressId,
    customer_ref: customerRef,
    address: displayAddress(row.chain, row.toAddress),
    amount: formatAmount(row.amount),
    remainder: formatUnits(row.remainder, row.tokenDecimals),
    currency: row.currency as Currency,
    chain: row.chain as ChainId,
    network: chainNetwork(view, row.chain),
    tx_hash: row.txHash,
    log_index: row.logIndex,
    from_address: displayAddress(row.chain, row.fromAddress),
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
  view: ViewContext,
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
    ...toDepositView(view, row, customerRef, confirmations),
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
