/**
 * Fires and resolves operator alerts (DESIGN.md 2 and 11), safe in any number of workers at once:
 *  - a condition fires by inserting its firing row; the partial unique index lets exactly one
 *    insert win while it lasts, so it fires once; it resolves by a compare-and-set on that row's
 *    state, so it resolves once;
 *  - an event alert is keyed by its event (the sources in event-alert-sources.ts say how), so
 *    each fires once;
 * and each transition writes its deliveries (one per configured channel) in the same transaction.
 * Nothing is sent here: the alert sender delivers the outbox (deliver-alerts.ts).
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { newId } from "../ids.js";
import { readAlertConditions, type ConditionReading, type Severity } from "./alert-conditions.js";
import { enqueueAlert } from "./alert-outbox.js";
import { EVENT_ALERT_SOURCES, type EventAlert } from "./event-alert-sources.js";

export interface EvaluateResult {
  fired: string[];
  resolved: string[];
}

/** Event alerts are taken from order events this recent (older ones predate the alerting). */
const EVENT_LOOKBACK_MS = 24 * 3600 * 1000;

export async function evaluateAlerts(
  ctx: Context,
  options: { headFreshMs?: number } = {},
): Promise<EvaluateResult> {
  const result: EvaluateResult = { fired: [], resolved: [] };
  const readings = await readAlertConditions(ctx, options);
  for (const reading of readings) {
    if (reading.firing === true && (await fireCondition(ctx, reading))) result.fired.push(reading.alert);
    if (reading.firing === false && (await resolveCondition(ctx, reading)))
      result.resolved.push(reading.alert);
  }
  result.fired.push(...(await fireEventAlerts(ctx)));
  if (result.fired.length > 0 || result.resolved.length > 0) {
    ctx.log.info({ fired: result.fired, resolved: result.resolved }, "operator alerts changed");
  }
  return result;
}

async function fireCondition(ctx: Context, reading: ConditionReading): Promise<boolean> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const id = newId();
    const rows = await queryRows<{ id: string }>(
      tx,
      sql`INSERT INTO alerts (id, alert, key, kind, severity, state, text, details, fired_at)
          VALUES (${id}, ${reading.alert}, ${reading.key}, 'condition', ${reading.severity}, 'firing',
                  ${reading.text}, ${JSON.stringify(reading.details)}::jsonb, ${now.toISOString()}::timestamptz)
          ON CONFLICT (key) WHERE kind = 'condition' AND state = 'firing' DO NOTHING
          RETURNING id`,
    );
    if (rows.length === 0) return false;
    await enqueueAlert(ctx, tx, {
      id,
      alert: reading.alert,
      severity: reading.severity,
      state: "firing",
      text: reading.text,
      details: reading.details,
      at: now,
    });
    return true;
  });
}

async function resolveCondition(ctx: Context, reading: ConditionReading): Promise<boolean> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const rows = await queryRows<{ id: string; severity: Severity }>(
      tx,
      sql`UPDATE alerts SET state = 'resolved', resolved_at = ${now.toISOString()}::timestamptz
          WHERE key = ${reading.key} AND kind = 'condition' AND state = 'firing'
          RETURNING id, severity`,
    );
    const row = rows[0];
    if (!row) return false;
    await enqueueAlert(ctx, tx, {
      id: row.id,
      alert: reading.alert,
      severity: row.severity,
      state: "resolved",
      text: reading.resolvedText,
      details: reading.details,
      at: now,
    });
    return true;
  });
}

/** Fires every event alert of every source that has none yet: one insert per key, so each fires once. */
async function fireEventAlerts(ctx: Context): Promise<string[]> {
  const now = ctx.clock.now();
  const since = new Date(now.getTime() - EVENT_LOOKBACK_MS).toISOString();
  const fired: string[] = [];
  for (const source of EVENT_ALERT_SOURCES) {
    for (const a of await source(ctx, since)) {
      if (await fireEventAlert(ctx, a, now)) fired.push(a.alert);
    }
  }
  return fired;
}

async function fireEventAlert(ctx: Context, a: EventAlert, now: Date): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const id = newId();
    const rows = await queryRows<{ id: string }>(
      tx,
      sql`INSERT INTO alerts (id, alert, key, kind, severity, state, text, details, fired_at, resolved_at)
          VALUES (${id}, ${a.alert}, ${a.key}, 'event', ${a.severity}, 'firing', ${a.text},
                  ${JSON.stringify(a.details)}::jsonb, ${now.toISOString()}::timestamptz, NULL)
          ON CONFLICT (key) WHERE kind = 'event' DO NOTHING
          RETURNING id`,
    );
    if (rows.length === 0) return false;
    const { alert, severity, text, details } = a;
    await enqueueAlert(ctx, tx, { id, alert, severity, state: "firing", text, details, at: now });
    return true;
  });
}
