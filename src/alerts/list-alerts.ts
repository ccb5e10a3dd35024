/**
 * Operator alerts for the admin API and the dashboard: every alert firing now, and the most recent
 * ones (firing or resolved), each with its deliveries per channel.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { MetricsSnapshot } from "../metrics/metrics-snapshot.js";

export interface AlertView {
  id: string;
  alert: string;
  kind: "condition" | "event";
  severity: string;
  state: "firing" | "resolved";
  text: string;
  details: Record<string, unknown>;
  fired_at: string;
  resolved_at: string | null;
  deliveries: {
    channel: string;
    state: string;
    status: string;
    attempts: number;
    last_error: string | null;
  }[];
}

export interface AlertList {
  /** Conditions firing now (event alerts fire once and are listed under recent). */
  firing: AlertView[];
  recent: AlertView[];
}

interface Row extends Record<string, unknown> {
  id: string;
  alert: string;
  kind: "condition" | "event";
  severity: string;
  state: "firing" | "resolved";
  text: string;
  details: unknown;
  fired_at: string;
  resolved_at: string | null;
  deliveries: unknown;
}

const iso = (v: string | null): string | null => (v === null ? null : new Date(Number(v)).toISOString());

export async function listAlerts(ctx: Context, limit = 50): Promise<AlertList> {
  const rows = await queryRows<Row>(
    ctx.db,
    sql`SELECT a.id, a.alert, a.kind, a.severity, a.state, a.text, a.details,
               (extract(epoch FROM a.fired_at) * 1000)::bigint::text AS fired_at,
               (extract(epoch FROM a.resolved_at) * 1000)::bigint::text AS resolved_at,
               COALESCE((SELECT json_agg(json_build_object('channel', d.channel, 'state', d.state, 'status', d.status,
                                  'attempts', d.attempts, 'last_error', d.last_error) ORDER BY d.created_at)
                         FROM alert_deliveries d WHERE d.alert_id = a.id), '[]'::json) AS deliveries
        FROM alerts a
        WHERE a.id IN (
          (SELECT id FROM alerts WHERE kind = 'condition' AND state = 'firing')
          UNION (SELECT id FROM alerts ORDER BY fired_at DESC LIMIT ${limit}))
        ORDER BY a.fired_at DESC`,
  );
  const views = rows.map((r): AlertView => ({
    id: r.id,
    alert: r.alert,
    kind: r.kind,
    severity: r.severity,
    state: r.state,
    text: r.text,
    details: (typeof r.details === "string" ? JSON.parse(r.details) : r.details) as Record<string, unknown>,
    fired_at: iso(r.fired_at) as string,
    resolved_at: iso(r.resolved_at),
    deliveries: (typeof r.deliveries === "string"
      ? JSON.parse(r.deliveries)
      : r.deliveries) as AlertView["deliveries"],
  }));
  return {
    firing: views.filter((v) => v.kind === "condition" && v.state === "firing"),
    recent: views.slice(0, limit),
  };
}

/** For the metrics snapshot: 1 per condition firing now (stablegate_alerts_firing{alert}). */
export async function alertsFiringSnapshot(ctx: Context): Promise<Partial<MetricsSnapshot>> {
  const rows = await queryRows<{ alert: string; n: number }>(
    ctx.db,
    sql`SELECT alert, count(*)::int AS n FROM alerts WHERE kind = 'condition' AND state = 'firing' GROUP BY alert`,
  );
  const alertsFiring: Record<string, number> = {
    hot_wallet_low: 0,
    scanner_lag: 0,
    node_down: 0,
    pool_low: 0,
    payout_float_low: 0,
    payout_unmatched: 0,
  };
  for (const r of rows) alertsFiring[r.alert] = Number(r.n);
  return { alertsFiring };
}
