/**
 * Recomputes the database-derived metric values and stores them for every process to read
 * (metrics-snapshot.ts). Any worker may call it on a timer: a compare-and-set on the row's
 * updated_at lets exactly one of them refresh per interval, so the backlog queries and the hot-wallet
 * node reads run once per deployment, not once per process or per scrape. The hot wallet is read
 * from the node once a minute at most (two calls), not on every 15 s refresh: its balance moves
 * only with sweeps, and the node-call budget (README) is spent on the scanner.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { formatSun } from "../money.js";
import { parseSnapshot, SNAPSHOT_KEY, type MetricsSnapshot } from "./metrics-snapshot.js";
import { alertsFiringSnapshot } from "../alerts/list-alerts.js";
import { payoutSnapshot } from "../payouts/payout-metrics.js";
import { addressPools } from "../wallet/address-pools.js";

/** How often the deployment recomputes the snapshot. */
export const SNAPSHOT_REFRESH_MS = 15_000;
/** How often the hot wallet's balance and energy are read from the node. */
export const HOT_WALLET_READ_MS = 60_000;

/**
 * One group of values; a source that throws leaves its values out of this refresh. `previous` is
 * the snapshot stored by the last refresh (any worker's), for values not re-read every time.
 */
export type SnapshotSource = (ctx: Context, previous: MetricsSnapshot) => Promise<Partial<MetricsSnapshot>>;

export const SNAPSHOT_SOURCES: readonly SnapshotSource[] = [
  webhookBacklog,
  addressPool,
  settlementQueue,
  hotWalletResources,
  alertsFiringSnapshot,
  payoutSnapshot,
];

export interface RefreshResult {
  /** false when another worker refreshed within the interval. */
  refreshed: boolean;
  snapshot?: MetricsSnapshot;
}

export async function refreshMetricsSnapshot(
  ctx: Context,
  options: { intervalMs?: number; sources?: readonly SnapshotSource[] } = {},
): Promise<RefreshResult> {
  const now = ctx.clock.now();
  const staleBefore = new Date(now.getTime() - (options.intervalMs ?? SNAPSHOT_REFRESH_MS) + 1_000);
  // The update leaves value alone, so RETURNING gives the previous refresh's snapshot.
  const claimed = await queryRows<{ value: unknown }>(
    ctx.db,
    sql`
    INSERT INTO app_state (key, value, updated_at)
    VALUES (${SNAPSHOT_KEY}, '{}'::jsonb, ${now.toISOString()}::timestamptz)
    ON CONFLICT (key) DO UPDATE SET updated_at = EXCLUDED.updated_at
    WHERE app_state.updated_at <= ${staleBefore.toISOString()}::timestamptz
    RETURNING value`,
  );
  if (claimed.length === 0) return { refreshed: false };
  const previous = parseSnapshot(claimed[0]?.value);

  const snapshot: MetricsSnapshot = { refreshedAt: now.getTime() };
  const parts = await Promise.allSettled(
    (options.sources ?? SNAPSHOT_SOURCES).map((source) => source(ctx, previous)),
  );
  for (const part of parts) {
    if (part.status === "fulfilled") Object.assign(snapshot, part.value);
    else ctx.log.warn({ err: part.reason }, "metrics snapshot source failed");
  }
  await ctx.db.execute(sql`
    UPDATE app_state SET value = ${JSON.stringify(snapshot)}::jsonb
    WHERE key = ${SNAPSHOT_KEY}`);
  ctx.metrics.snapshot = snapshot;
  return { refreshed: true, snapshot };
}

async function webhookBacklog(ctx: Context): Promise<Partial<MetricsSnapshot>> {
  const now = ctx.clock.now().toISOString();
  const [row] = await queryRows<{ due: number; age: number | string | null }>(
    ctx.db,
    sql`
    SELECT count(*)::int AS due,
           extract(epoch FROM (${now}::timestamptz - min(next_attempt_at)))::float8 AS age
    FROM webhook_deliveries
    WHERE status = 'pending' AND next_attempt_at <= ${now}::timestamptz`,
  );
  return {
    webhookDueDeliveries: Number(row?.due ?? 0),
    webhookOldestDueAgeSeconds: Math.max(0, Number(row?.age ?? 0)),
  };
}

// The pools' counters (migration 0013), per chain family (0022): no index of addresses covers status since 0016.
async function addressPool(ctx: Context): Promise<Partial<MetricsSnapshot>> {
  const rows = await queryRows<{ family: string; free: number }>(
    ctx.db,
    sql`SELECT family, coalesce(sum(free), 0)::int AS free FROM address_pool_counts GROUP BY family`,
  );
  const byFamily: Record<string, number> = {};
  // every enabled family, 0 until its pool has an address
  for (const pool of addressPools(ctx)) byFamily[pool.family] = 0;
  for (const row of rows) byFamily[row.family] = Number(row.free);
  return {
    addressPoolFree: Object.values(byFamily).reduce((sum, n) => sum + n, 0),
    addressPoolFreeByFamily: byFamily,
  };
}

async function settlementQueue(ctx: Context): Promise<Partial<MetricsSnapshot>> {
  const rows = await queryRows<{ status: string; n: number }>(
    ctx.db,
    sql`
    SELECT status, count(*)::int AS n FROM settlements
    WHERE status IN ('waiting', 'active', 'failed') GROUP BY status`,
  );
  const settlements: Record<string, number> = { waiting: 0, active: 0, failed: 0 };
  for (const row of rows) settlements[row.status] = Number(row.n);
  return { settlements };
}

async function hotWalletResources(
  ctx: Context,
  previous: MetricsSnapshot,
): Promise<Partial<MetricsSnapshot>> {
  const address = ctx.config.hotWalletAddress;
  // A deployment without TRON has no TRON hot wallet to read (and no node to read it from).
  if (!address || ctx.chains.get("tron") === undefined) return {};
  const now = ctx.clock.now().getTime();
  if (previous.hotWalletReadAt !== undefined && now - previous.hotWalletReadAt < HOT_WALLET_READ_MS) {
    const { hotWalletReadAt, hotWalletBalanceTrx, hotWalletStakedEnergy, hotWalletAvailableEnergy } =
      previous;
    return { hotWalletReadAt, hotWalletBalanceTrx, hotWalletStakedEnergy, hotWalletAvailableEnergy };
  }
  const [account, resources] = await Promise.all([
    ctx.chain.client.getAccount(address),
    ctx.chain.client.getAccountResource(address),
  ]);
  const limit = Number(resources.EnergyLimit ?? 0);
  return {
    hotWalletReadAt: now,
    // A gauge is a float by nature; the exact sun amount is formatted first, so only the export rounds.
    hotWalletBalanceTrx: Number(formatSun(BigInt(account?.balance ?? 0))),
    hotWalletStakedEnergy: limit,
    hotWalletAvailableEnergy: Math.max(0, limit - Number(resources.EnergyUsed ?? 0)),
  };
}
