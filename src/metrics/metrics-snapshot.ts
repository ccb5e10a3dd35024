/**
 * The database-derived metric values (backlogs, pool, balances), shared by every process through one
 * app_state row. One worker at a time recomputes them on a timer (refresh-metrics-snapshot.ts) and
 * writes the row; every process, api or worker, reads the row on its own timer into memory, and the
 * gauges read memory when scraped. A scrape therefore never queries the database or the node, and
 * every process exports the same values (aggregate them with max(), not sum()).
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";

export const SNAPSHOT_KEY = "metrics_snapshot";

export interface MetricsSnapshot {
  /** Epoch ms of the refresh; undefined before the first one. */
  refreshedAt?: number;
  webhookDueDeliveries?: number;
  webhookOldestDueAgeSeconds?: number;
  addressPoolFree?: number;
  /** Free addresses per chain family's pool (tron, evm). */
  addressPoolFreeByFamily?: Record<string, number>;
  settlements?: Record<string, number>;
  /** Absent when no hot wallet is configured or the node did not answer. */
  hotWalletBalanceTrx?: number;
  hotWalletStakedEnergy?: number;
  hotWalletAvailableEnergy?: number;
  /** Epoch ms (ctx clock) the hot wallet values were read from the node. */
  hotWalletReadAt?: number;
  /** DESIGN.md 14: refunds and payouts by status, the oldest approved one's age, the USDT float. */
  payouts?: Record<string, number>;
  payoutOldestApprovedAgeSeconds?: number;
  payoutFloatUsdt?: number;
  payoutFloatReadAt?: number;
  /** alert name -> 1 while it fires (filled by the alert module's snapshot source). */
  alertsFiring?: Record<string, number>;
}

export const EMPTY_SNAPSHOT: MetricsSnapshot = Object.freeze({});

/** Loads the shared snapshot into ctx.metrics (one small query; run on a timer, not per scrape). */
export async function readMetricsSnapshot(ctx: Context): Promise<MetricsSnapshot> {
  const rows = await queryRows<{ value: unknown }>(
    ctx.db,
    sql`SELECT value FROM app_state WHERE key = ${SNAPSHOT_KEY}`,
  );
  const snapshot = parseSnapshot(rows[0]?.value);
  ctx.metrics.snapshot = snapshot;
  return snapshot;
}

/** The stored JSON, keeping only finite numbers (a row written by another version stays harmless). */
export function parseSnapshot(raw: unknown): MetricsSnapshot {
  const value = typeof raw === "string" ? (JSON.parse(raw) as unknown) : raw;
  if (typeof value !== "object" || value === null) return EMPTY_SNAPSHOT;
  const source = value as Record<string, unknown>;
  const snapshot: MetricsSnapshot = {};
  const numbers = [
    "refreshedAt",
    "webhookDueDeliveries",
    "webhookOldestDueAgeSeconds",
    "addressPoolFree",
    "hotWalletBalanceTrx",
    "hotWalletStakedEnergy",
    "hotWalletAvailableEnergy",
    "hotWalletReadAt",
    "payoutOldestApprovedAgeSeconds",
    "payoutFloatUsdt",
    "payoutFloatReadAt",
  ] as const;
  for (const key of numbers) {
    const v = source[key];
    if (typeof v === "number" && Number.isFinite(v)) snapshot[key] = v;
  }
  for (const key of ["settlements", "alertsFiring", "payouts", "addressPoolFreeByFamily"] as const) {
    const v = source[key];
    if (typeof v !== "object" || v === null) continue;
    const map: Record<string, number> = {};
    for (const [label, n] of Object.entries(v as Record<string, unknown>)) {
      if (typeof n === "number" && Number.isFinite(n) && /^[A-Za-z0-9_.-]{1,64}$/.test(label)) map[label] = n;
    }
    snapshot[key] = map;
  }
  return snapshot;
}
