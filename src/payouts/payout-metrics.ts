/**
 * The refund and payout values of the shared metrics snapshot (DESIGN.md 14): payouts by status,
 * the age of the oldest approved payout not yet sent, and the hot wallet's USDT float (read from
 * the node at most once a minute, like the hot wallet's TRX).
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import type { MetricsSnapshot } from "../metrics/metrics-snapshot.js";
import { formatAmount } from "../money.js";
import { encodeBalanceOf } from "@stablegate/tron/abi";
import { PAYOUT_STATUSES } from "./payout-types.js";

const FLOAT_READ_MS = 60_000;

export async function payoutSnapshot(
  ctx: Context,
  previous: MetricsSnapshot,
): Promise<Partial<MetricsSnapshot>> {
  const now = ctx.clock.now();
  const [rows, [oldest]] = await Promise.all([
    queryRows<{ status: string; n: number }>(
      ctx.db,
      sql`SELECT status, count(*)::int AS n FROM payouts GROUP BY status`,
    ),
    queryRows<{ at: string | null }>(
      ctx.db,
      sql`SELECT (extract(epoch FROM min(approved_at)) * 1000)::bigint::text AS at FROM payouts WHERE status = 'approved'`,
    ),
  ]);
  const payouts: Record<string, number> = Object.fromEntries(PAYOUT_STATUSES.map((s) => [s, 0]));
  for (const row of rows) payouts[row.status] = Number(row.n);
  const approvedAt = oldest?.at ? Number(oldest.at) : undefined;
  const snapshot: Partial<MetricsSnapshot> = {
    payouts,
    payoutOldestApprovedAgeSeconds:
      approvedAt === undefined ? 0 : Math.max(0, (now.getTime() - approvedAt) / 1000),
  };
  const hot = ctx.config.hotWalletAddress;
  const usdt = ctx.chain.usdtContract;
  if (!hot || !usdt) return snapshot;
  if (
    previous.payoutFloatReadAt !== undefined &&
    now.getTime() - previous.payoutFloatReadAt < FLOAT_READ_MS
  ) {
    return {
      ...snapshot,
      payoutFloatUsdt: previous.payoutFloatUsdt,
      payoutFloatReadAt: previous.payoutFloatReadAt,
    };
  }
  try {
    const result = await ctx.chain.client.triggerConstantContract({
      owner: hot,
      contract: usdt,
      data: encodeBalanceOf(hot),
    });
    const word = result.constant_result?.[0];
    if (!word || !/^[0-9a-f]{1,64}$/i.test(word)) return snapshot;
    // A gauge is a float by nature; the exact amount is formatted first, so only the export rounds.
    return {
      ...snapshot,
      payoutFloatUsdt: Number(formatAmount(BigInt(`0x${word}`))),
      payoutFloatReadAt: now.getTime(),
    };
  } catch {
    return snapshot;
  }
}
