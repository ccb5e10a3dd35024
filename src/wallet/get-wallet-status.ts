/**
 * Wallet status for operators (SPEC.md 2.7): hot wallet balances (TRX and USDT), the cold wallet's
 * USDT, address pool, sweep queue and the system settings; beside them each chain family's pool
 * (address_pools) and each EVM chain's wallets (evm_wallets, read-evm-wallets.ts). A node that does not answer leaves a
 * balance null with balance_error, never an error reply. Never a private key; the node URL is shown without credentials.
 */
import { sql } from "drizzle-orm";
import type { WalletStatus } from "../admin/api-shapes.js";
import { withoutCredentials } from "../config.js";
import type { Context } from "../context.js";
import { localSlot } from "../local-state.js";
import { settlements } from "../db/schema.js";
import { formatAmount, formatSun } from "../money.js";
import { getSweepCosts } from "../sweeps/get-sweep-costs.js";
import { getAddressPoolCounts, getFamilyPoolCounts } from "./get-address-pool-counts.js";
import { readEvmWallets } from "./read-evm-wallets.js";
import { readHotWalletStake } from "./read-hot-wallet-stake.js";
import { readUsdtBalance } from "../payouts/usdt-balance.js";

const SUN_PER_TRX = 1_000_000n;
/** Dashboards poll; the balance is read from the node at most this often. */
const BALANCE_CACHE_MS = 10_000;

export type { WalletStatus };

interface CachedBalance {
  address: string;
  sun: bigint;
  /** null: no USDT contract configured, or its read failed (usdtError). */
  usdt: bigint | null;
  usdtError: boolean;
  at: number;
}
// This process's last reading, shared by every request.
const balanceCache = localSlot("hot wallet balance", (): { last?: CachedBalance } => ({}));
const coldBalanceCache = localSlot(
  "cold wallet balance",
  (): { last?: { address: string; usdt: bigint | null; at: number } } => ({}),
);

export async function getWalletStatus(ctx: Context): Promise<WalletStatus> {
  const { config } = ctx;
  const [pool, pools, queue, hot, cold, costs, evm] = await Promise.all([
    getAddressPoolCounts(ctx),
    getFamilyPoolCounts(ctx),
    sweepQueue(ctx),
    hotWallet(ctx),
    coldWallet(ctx),
    getSweepCosts(ctx),
    readEvmWallets(ctx),
  ]);
  return {
    hot_wallet: hot,
    cold_wallet: cold,
    address_pool: pool,
    address_pools: pools,
    evm_wallets: evm,
    sweep_queue: queue,
    // Burn mode stakes nothing; a node that just failed the balance read is not asked again.
    stake:
      hot && config.sweepMode === "delegate"
        ? await readHotWalletStake(ctx, hot.address, hot.balance_error !== undefined)
        : null,
    sweep_costs: costs,
    system: {
      chain_network: config.tronNetwork,
      usdt_contract: ctx.chain.usdtContract ?? null,
      node_api_url: withoutCredentials(config.tronNodeUrl) ?? null,
      chain_explorer_base_url: config.explorer.chainBaseUrl ?? null,
      tx_explorer_base_url: config.explorer.txBaseUrl ?? null,
      address_explorer_base_url: config.explorer.addressBaseUrl ?? null,
      sweep_enabled: config.sweepEnabled,
      sweep_mode: config.sweepMode,
      hot_wallet_alert_trx: config.hotWalletAlertTrx,
    },
  };
}

async function sweepQueue(ctx: Context): Promise<WalletStatus["sweep_queue"]> {
  const rows = await ctx.db
    .select({ status: settlements.status, n: sql<string>`count(*)` })
    .from(settlements)
    .groupBy(settlements.status);
  const count = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0);
  return { waiting: count("waiting"), active: count("active"), failed: count("failed") };
}

async function hotWallet(ctx: Context): Promise<WalletStatus["hot_wallet"]> {
  // HOT_WALLET_ADDRESS (or the key's address): an api process without the key shows it too.
  const address = ctx.config.hotWalletAddress;
  if (!address) return null;
  const threshold = BigInt(ctx.config.hotWalletAlertTrx) * SUN_PER_TRX;
  const cache = ctx.local.get(balanceCache);
  const cached = cache.last;
  const now = ctx.clock.now().getTime();
  const reading = (sun: bigint, usdt: bigint | null, usdtError: boolean) => ({
    address,
    trx_balance: formatSun(sun),
    usdt_balance: usdt === null ? null : formatAmount(usdt),
    is_low_balance: sun < threshold,
    ...(usdtError ? { balance_error: "USDT balance unavailable" } : {}),
  });
  if (cached && cached.address === address && now - cached.at < BALANCE_CACHE_MS) {
    return reading(cached.sun, cached.usdt, cached.usdtError);
  }
  try {
    const [account, usdt] = await Promise.all([
      ctx.chain.client.getAccount(address),
      readUsdtBalance(ctx, address).catch((error: unknown) => {
        ctx.log.warn({ err: error }, "hot wallet USDT balance unavailable");
        return "error" as const;
      }),
    ]);
    // java-tron prints balances as JSON integers (exact below 2^53); converted to bigint at once.
    const sun = BigInt(account?.balance ?? 0);
    const usdtError = usdt === "error";
    const micro = usdt === "error" ? null : (usdt ?? null);
    cache.last = { address, sun, usdt: micro, usdtError, at: now };
    return reading(sun, micro, usdtError);
  } catch (error) {
    ctx.log.warn({ err: error }, "hot wallet balance unavailable");
    const sun = cached?.address === address ? cached.sun : 0n;
    return { ...reading(sun, null, false), balance_error: "TRON node unreachable" };
  }
}

/** The cold wallet's USDT, read from the node like the hot wallet's (and cached as long). */
async function coldWallet(ctx: Context): Promise<WalletStatus["cold_wallet"]> {
  const address = ctx.config.coldWalletAddress;
  if (!address) return null;
  const cache = ctx.local.get(coldBalanceCache);
  const now = ctx.clock.now().getTime();
  const cached = cache.last;
  if (cached && cached.address === address && now - cached.at < BALANCE_CACHE_MS) {
    return { address, usdt_balance: cached.usdt === null ? null : formatAmount(cached.usdt) };
  }
  try {
    const usdt = (await readUsdtBalance(ctx, address)) ?? null;
    cache.last = { address, usdt, at: now };
    return { address, usdt_balance: usdt === null ? null : formatAmount(usdt) };
  } catch (error) {
    ctx.log.warn({ err: error }, "cold wallet balance unavailable");
    return { address, usdt_balance: null, balance_error: "TRON node unreachable" };
  }
}
