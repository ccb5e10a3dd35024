/**
 * The chain side every sweep mode shares: reads (USDT balance, transfer cost, reference block),
 * sign-store-broadcast, and where a stored transaction stands on its way to the solidified chain.
 *
 * Every transaction is built and signed here (never by a node) and stored with its step before it
 * is broadcast, so a crash between the two re-broadcasts the same signed bytes on the next run
 * instead of paying twice. A transaction that expired unseen can never land and is built again
 * (landing: judged on one node, on two separate rounds).
 */
import type { Executor } from "../db/connection.js";
import { encodeBalanceOf, encodeTransfer } from "@stablegate/tron/abi";
import { TronNodeError } from "@stablegate/tron/node-errors";
import type { TransactionInfo } from "@stablegate/tron/node-types";
import type { TransactionJson } from "@stablegate/tron/protobuf";
import type { RefBlock } from "@stablegate/tron/transaction";
import { MISSING_ROUNDS_TO_EXPIRE, noteMissing } from "./missing-sightings.js";
import { savePatch } from "./settlement-store.js";
import { chainFailure } from "../chains/tron/transaction-failure.js";
import { insertLedgerTx, recordLanding, type LedgerEntry } from "./sweep-ledger.js";
import type { ChainPrices } from "./sweep-plan.js";
import {
  SweepError,
  type Patch,
  type SettlementRow,
  type StepResult,
  type SweepDeps,
} from "./sweep-types.js";

/** The USDT balance of `address` at the head, or with `solidified` on the solidified state. */
export async function usdtBalance(
  d: Pick<SweepDeps, "client" | "usdt">,
  address: string,
  opts: { solidified?: boolean } = {},
): Promise<bigint> {
  const result = await d.client.triggerConstantContract(
    { owner: address, contract: d.usdt, data: encodeBalanceOf(address) },
    opts,
  );
  const word = result.constant_result?.[0];
  if (!word || !/^[0-9a-f]{1,64}$/i.test(word)) throw new SweepError("balanceOf answered no value");
  return BigInt(`0x${word}`);
}

export async function refBlock(d: SweepDeps): Promise<RefBlock & { timestamp: number }> {
  const head = await d.client.getNowBlock();
  const raw = head.block_header.raw_data;
  // The wall clock stands in for a block without a timestamp: the node judges the transaction's
  // expiry by its own block times, never by ctx.clock.
  return { number: raw.number ?? 0, hash: head.blockID, timestamp: raw.timestamp ?? Date.now() };
}

/** What moving `balance` off `address` costs now: the transfer's energy and the chain's prices. */
export async function transferCost(
  d: SweepDeps,
  address: string,
  balance: bigint,
): Promise<ChainPrices & { energy: bigint }> {
  const [energy, params] = await Promise.all([
    d.client.estimateEnergy({ owner: address, contract: d.usdt, data: encodeTransfer(d.cold, balance) }),
    d.client.getChainParameters(),
  ]);
  return {
    energy: BigInt(energy),
    energyPriceSun: BigInt(params.getEnergyFee ?? 420),
    bandwidthPriceSun: BigInt(params.getTransactionFee ?? 1000),
  };
}

export async function broadcast(d: SweepDeps, signed: TransactionJson): Promise<void> {
  try {
    await d.client.broadcastTransaction(signed);
  } catch (error) {
    // Already in the node's pool or chain: the earlier broadcast of these bytes went through.
    if (error instanceof TronNodeError && error.code === "DUP_TRANSACTION_ERROR") return;
    throw error;
  }
}

/**
 * Sends stored bytes again while they wait to land. A node that calls them expired by its own clock
 * is not an error here: only the expiry rule (missing-sightings.ts) decides they can never land.
 */
export async function rebroadcast(d: SweepDeps, signed: TransactionJson): Promise<void> {
  try {
    await broadcast(d, signed);
  } catch (error) {
    if (error instanceof TronNodeError && error.code === "TRANSACTION_EXPIRATION_ERROR") return;
    throw error;
  }
}

/**
 * Signs a transaction against the current head, stores it with `patch(signed)` (the step that
 * waits for it, the signed bytes) and only then broadcasts it. Returns the wait for it.
 */
export async function signStoreBroadcast(
  d: SweepDeps,
  row: SettlementRow,
  entry: LedgerEntry,
  sign: (ref: RefBlock & { timestamp: number }) => TransactionJson,
  patch: (signed: TransactionJson) => Patch,
  reserve?: (tx: Executor) => Promise<boolean>,
): Promise<StepResult> {
  const signed = sign(await refBlock(d));
  await d.onStep?.("signed", entry.kind, row.id);
  const stored = patch(signed);
  // Recorded before the broadcast: a crash from here on re-broadcasts these bytes. `reserve` may
  // refuse inside the same transaction (the stake is short), and then nothing is stored or sent.
  const kept = await d.ctx.db.transaction(async (tx) => {
    if (reserve && !(await reserve(tx))) return false;
    await savePatch(d, row, stored, tx);
    await insertLedgerTx(d, tx, row, signed, entry);
    return true;
  });
  if (!kept) return { kind: "wait" };
  await d.onStep?.("stored", entry.kind, row.id);
  await broadcast(d, signed);
  await recordLanding(d, signed.txID, "sent");
  await d.onStep?.("broadcast", entry.kind, row.id);
  return { kind: "wait", patch: stored };
}

export type Landing =
  | { state: "solid"; info: TransactionInfo }
  | { state: "included"; info: TransactionInfo }
  | { state: "pending" }
  | { state: "expired" };

/**
 * Where a stored transaction stands: solidified with success ("solid"), in a block but not solid yet
 * ("included"), still in flight ("pending": the same bytes are broadcast again), or expired without
 * ever being included ("expired": it can never land, so building a new one cannot pay twice). A
 * transaction that failed on chain throws SweepError. Each answer is written to the ledger, with
 * the fees the chain charged once it is solid.
 *
 * Expired is judged on the round's one pinned node (sweepDeps), as the payout sender judges it: its
 * solidified head, read first, is past the expiration, and its solidified chain and head chain
 * lack the transaction, on MISSING_ROUNDS_TO_EXPIRE separate rounds (missing-sightings.ts).
 */
export async function landing(d: SweepDeps, signed: TransactionJson): Promise<Landing> {
  const solidHead = await d.client.getSolidifiedNowBlock();
  const solid = await d.client.getTransactionInfoById(signed.txID, { solidified: true });
  if (solid) {
    const failed = chainFailure(solid);
    await recordLanding(d, signed.txID, failed ? "failed" : "solid", solid);
    if (failed) throw new SweepError(`transaction ${signed.txID} failed on chain: ${failed}`);
    return { state: "solid", info: solid };
  }
  const included = await d.client.getTransactionInfoById(signed.txID);
  if (included) {
    // A failure is judged once it is final: the same bytes may still land differently after a fork.
    if (!chainFailure(included)) await recordLanding(d, signed.txID, "included");
    return { state: "included", info: included };
  }
  if (signed.raw_data.expiration < (solidHead.block_header.raw_data.timestamp ?? 0)) {
    if ((await noteMissing(d.ctx, "sweep_transactions", signed.txID)) < MISSING_ROUNDS_TO_EXPIRE) {
      d.ctx.log.warn({ txHash: signed.txID }, "sweep transaction missing past its expiration; looking again");
      return { state: "pending" };
    }
    await recordLanding(d, signed.txID, "expired");
    return { state: "expired" };
  }
  await rebroadcast(d, signed);
  return { state: "pending" };
}
