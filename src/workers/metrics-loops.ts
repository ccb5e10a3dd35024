/**
 * The two timers behind the database-derived gauges (src/metrics/metrics-snapshot.ts): every process
 * reads the shared snapshot into memory; worker processes also offer to recompute it, and the
 * compare-and-set in refreshMetricsSnapshot lets one of them do so per interval. The reader also
 * keeps stablegate_database_up: 0 while the database is unreachable from this process.
 */
import type { Context } from "../context.js";
import { isDatabaseUnavailable } from "../db/database-error.js";
import { readMetricsSnapshot } from "../metrics/metrics-snapshot.js";
import { refreshMetricsSnapshot, SNAPSHOT_REFRESH_MS } from "../metrics/refresh-metrics-snapshot.js";
import { startLoop, type Loop } from "./loop.js";

/** How often a process reloads the snapshot row into memory. */
export const SNAPSHOT_READ_MS = 5_000;

export function startMetricsSnapshotReader(ctx: Context): Loop {
  return startLoop({
    name: "metrics-snapshot-reader",
    log: ctx.log,
    intervalMs: SNAPSHOT_READ_MS,
    task: async () => {
      try {
        await readMetricsSnapshot(ctx);
        ctx.metrics.databaseUp.set(1);
      } catch (error) {
        if (isDatabaseUnavailable(error)) ctx.metrics.databaseUp.set(0);
        throw error;
      }
    },
  });
}

export function startMetricsRefresher(ctx: Context): Loop {
  return startLoop({
    name: "metrics-refresher",
    log: ctx.log,
    intervalMs: SNAPSHOT_REFRESH_MS,
    task: async () => {
      await refreshMetricsSnapshot(ctx);
    },
  });
}
