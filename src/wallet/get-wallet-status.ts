/**
 * Wallet status for operators (SPEC.md 2.7): hot wallet balance, cold wallet, address pool, sweep
 * queue and the system settings. Never a private key; the node URL is shown without credentials.
 */
import { sql } from "drizzle-orm";
import type { WalletStatus } from "../admin/api-shapes.js";
import { withoutCredentials } from "../config.js";
import type { Context } from "../context.js";
import { localSlot } from "../local-state.js";
import { settlements } from "../db/schema.js";
import { formatSun } from "../money.js";
import { getSweepCosts } from "../sweeps/get-sweep-costs.js";
import { getAddressPoolCounts } from "./get-address-pool-counts.js";
import { readHotWalletStake } from "./read-hot-wallet-stake.js";

const SUN_PER_TRX = 1_000_000n;
/** Dashboards poll; the balance is read from the node at most this often. */
const BALANCE_CACHE_MS = 10_000;

export type { WalletStatus };

interface CachedBalance {
  address: string;
  sun: bigint;
  at: number;
}
// This process's last reading, shared by every request.
const balanceCache = localSlot("hot wallet balance", (): { last?: CachedBalance } => ({}));

export async function getWalletStatus(ctx: Context): Promise<WalletStatus> {
  const { config } = ctx;
  const [pool, queue, hot, costs] = await Promise.all([
    getAddressPoolCounts(ctx),
    sweepQueue(ctx),
    hotWallet(ctx),
    getSweepCosts(ctx),
  ]);
  return {
    hot_wallet: hot,
    cold_wallet: config.coldWalletAddress ? { address: config.coldWalletAddress } : null,
    address_pool: pool,
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
  if (cached && cached.address === address && now - cached.at < BALANCE_CACHE_MS) {
    return { address, trx_balance: formatSun(cached.sun), is_low_balance: cached.sun < threshold };
  }
  try {
    const account = await ctx.chain.client.getAccount(address);
    // java-tron prints balances as JSON integers (exact below 2^53); converted to bigint at once.
    const sun = BigInt(account?.balance ?? 0);
    cache.last = { address, sun, at: now };
    return { address, trx_balance: formatSun(sun), is_low_balance: sun < threshold };
  } catch (error) {
    ctx.log.warn({ err: error }, "hot wallet balance unavailable");
    const sun = cached?.address === address ? cached.sun : 0n;
    return {
      address,
      trx_balance: formatSun(sun),
      is_low_balance: sun < threshold,
      balance_error: "TRON node unreachable",
    };
  }
}
