/**
 * The delegation reconciler (DESIGN.md 7b): no delegation may outlive its settlement. The chain's
 * own list of the hot wallet's delegations is the truth; every one to a deposit address of ours whose
 * settlement is no longer open (completed, failed, or gone) is taken back with UnDelegateResource,
 * signed here and stored (kind `reclaim`) before it is broadcast. A worker killed between delegating
 * and undelegating therefore strands no energy for longer than one reconciler pass after the
 * settlement ends. Delegations to addresses that are not ours are the operator's and are left alone.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { toBase58 } from "@stablegate/tron/address";
import { TronNodeError } from "@stablegate/tron/node-errors";
import type { TransactionJson } from "@stablegate/tron/protobuf";
import { signTransaction } from "@stablegate/tron/sign";
import { buildUnDelegateResource } from "@stablegate/tron/transaction";
import { delegatedTo } from "./delegate-plan.js";
import { sweepDeps } from "./run-sweeps.js";
import { broadcast, landing, refBlock } from "./sweep-chain.js";
import { insertLedgerTx, recordLanding } from "./sweep-ledger.js";
import { SweepError, type SweepDeps } from "./sweep-types.js";

export interface ReconcileResult {
  /** deposit addresses the hot wallet delegates energy to */
  delegations: number;
  /** of those, addresses whose settlement is still open (left to it) */
  open: number;
  /** undelegations signed and broadcast by this pass */
  reclaimed: number;
}

export async function reconcileDelegations(ctx: Context): Promise<ReconcileResult> {
  const result: ReconcileResult = { delegations: 0, open: 0, reclaimed: 0 };
  const d = sweepDeps(ctx, `reconciler-${process.pid}`);
  if (!d) return result;
  // A burn-mode deployment that never delegated has nothing to reconcile (and its node need not
  // serve the Stake 2.0 reads); one that switched back from delegate mode still has.
  if (ctx.config.sweepMode !== "delegate") {
    const [any] = await queryRows<{ any: boolean }>(
      ctx.db,
      sql`SELECT EXISTS (SELECT 1 FROM sweep_transactions WHERE kind = 'delegate') AS any`,
    );
    if (!any?.any) return result;
  }
  await followReclaims(d);
  const index = await d.client.getDelegatedResourceAccountIndexV2(d.hotAddress);
  for (const to of index.toAccounts) {
    const address = toBase58(to);
    const nowMs = ctx.clock.now().getTime();
    const [state] = await queryRows<{ ours: boolean; open: boolean; in_flight: boolean }>(
      ctx.db,
      sql`SELECT
        EXISTS (SELECT 1 FROM addresses WHERE address = ${address}) AS ours,
        EXISTS (SELECT 1 FROM settlements WHERE address = ${address} AND status IN ('waiting', 'active')) AS open,
        EXISTS (SELECT 1 FROM sweep_transactions
          WHERE address = ${address} AND kind IN ('undelegate', 'reclaim') AND state IN ('signed', 'sent', 'included')
            AND (signed -> 'raw_data' ->> 'expiration')::bigint > ${nowMs}) AS in_flight`,
    );
    if (!state?.ours) continue;
    result.delegations++;
    if (state.open) {
      result.open++;
      continue;
    }
    if (state.in_flight) continue;
    const stakeSun = await delegatedTo(d, address);
    if (stakeSun === 0n) continue;
    try {
      await reclaim(d, address, stakeSun);
      result.reclaimed++;
      ctx.log.warn({ address, stakeSun: String(stakeSun) }, "stranded delegation reclaimed");
    } catch (error) {
      if (error instanceof TronNodeError && error.retryable) throw error;
      ctx.log.warn(
        { address, err: error instanceof Error ? error.message : String(error) },
        "reclaim refused",
      );
    }
  }
  return result;
}

async function reclaim(d: SweepDeps, address: string, stakeSun: bigint): Promise<void> {
  const ref = await refBlock(d);
  const signed = signTransaction(
    buildUnDelegateResource({
      owner: d.hotAddress,
      receiver: address,
      balance: stakeSun,
      resource: "ENERGY",
      refBlock: ref,
      nowMs: ref.timestamp,
    }),
    d.hotKey,
  );
  await insertLedgerTx(d, d.ctx.db, null, signed, { kind: "reclaim", address, stakeSun });
  await broadcast(d, signed);
  await recordLanding(d, signed.txID, "sent");
}

/** Earlier reclaims: re-broadcast while in flight, and record their fees once they are solid. */
async function followReclaims(d: SweepDeps): Promise<void> {
  const open = await queryRows<{ signed: TransactionJson }>(
    d.ctx.db,
    sql`SELECT signed FROM sweep_transactions WHERE kind = 'reclaim' AND state IN ('signed', 'sent', 'included')`,
  );
  for (const { signed } of open) {
    try {
      await landing(d, signed);
    } catch (error) {
      // Refused on chain (already undelegated another way): the ledger has recorded it as failed.
      if (!(error instanceof SweepError)) throw error;
    }
  }
}
