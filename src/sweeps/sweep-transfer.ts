/**
 * The steps every mode ends with: sign the transfer of the whole USDT balance to the cold wallet with
 * the deposit address's derived key (`sweep`), then wait until it is solidified with a SUCCESS
 * receipt (`sweep_sent`). Where the address's energy came from (burnt TRX or a delegation) is the
 * mode's business; what follows the solidified sweep is too (`after`).
 */
import { formatAmount } from "../money.js";
import { encodeTransfer } from "@stablegate/tron/abi";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import { derivePrivateKey, ORDER_BRANCH, STATIC_BRANCH } from "@stablegate/tron/hd";
import type { TransactionJson } from "@stablegate/tron/protobuf";
import { signTransaction } from "@stablegate/tron/sign";
import { buildTriggerSmartContract } from "@stablegate/tron/transaction";
import { savePatch } from "./settlement-store.js";
import { landing, signStoreBroadcast, transferCost, type Landing } from "./sweep-chain.js";
import { sweepFeeLimit } from "./sweep-plan.js";
import { isStatic, sweepableAmount, sweepableRest } from "./sweepable-amount.js";
import { SweepError, type SettlementRow, type StepResult, type SweepDeps } from "./sweep-types.js";

export async function signSweep(d: SweepDeps, row: SettlementRow): Promise<StepResult> {
  const balance = await sweepableAmount(d, row);
  if (balance === 0n) throw new SweepError("the deposit address holds no USDT to sweep");
  // fee_limit caps the energy even when a delegation pays for it, so it always covers the estimate.
  const feeLimitSun = sweepFeeLimit(await transferCost(d, row.address, balance));
  // An order address is on branch 0 (derivation_index), a static deposit address on branch 1.
  const branch = isStatic(row) ? STATIC_BRANCH : ORDER_BRANCH;
  const derivationIndex = isStatic(row) ? row.static_index : row.derivation_index;
  if (derivationIndex === null || derivationIndex === undefined)
    throw new SweepError("the deposit address is not one of our derived addresses");
  return signStoreBroadcast(
    d,
    row,
    { kind: "sweep", address: row.address },
    (ref) => {
      const key = derivePrivateKey(d.mnemonic, derivationIndex, "", branch);
      try {
        if (addressFromPrivateKey(key) !== row.address) {
          throw new SweepError("WALLET_MNEMONIC does not derive this deposit address");
        }
        return signTransaction(
          buildTriggerSmartContract({
            owner: row.address,
            contract: d.usdt,
            data: encodeTransfer(d.cold, balance),
            feeLimit: feeLimitSun,
            refBlock: ref,
            nowMs: ref.timestamp,
          }),
          key,
        );
      } finally {
        key.fill(0);
      }
    },
    (signed) => ({
      step: "sweep_sent",
      amount: balance,
      sweep_tx_hash: signed.txID,
      sweep_tx_signed: signed,
    }),
  );
}

/**
 * Waits for the sweep transaction. Once it is solid the settlement goes on with `after` (the mode's
 * clean-up), or finishes when the mode has none. A sweep that failed on chain (OUT_OF_ENERGY,
 * REVERT) sends the settlement back to `restart`: whatever it burnt is gone, so it is paid for again.
 */
export async function awaitSweep(
  d: SweepDeps,
  row: SettlementRow,
  opts: { restart: string; after: string | null },
): Promise<StepResult> {
  const signed = row.sweep_tx_signed;
  if (!signed) return { kind: "next", step: "sweep" };
  let state: Landing;
  try {
    state = await landing(d, signed);
  } catch (error) {
    if (error instanceof SweepError) await savePatch(d, row, { step: opts.restart });
    throw error;
  }
  if (state.state === "pending" || state.state === "included") {
    await d.onStep?.("waiting", "sweep", row.id);
    return { kind: "wait" };
  }
  if (state.state === "expired") return { kind: "next", step: "sweep" };
  if (opts.after !== null) {
    return { kind: "next", step: opts.after, patch: { swept_at: d.ctx.clock.now() } };
  }
  return sweptResult(d, row, signed);
}

/**
 * The end of a settlement whose sweep is solid: `sweep_completed`, and another round when a payment
 * arrived after the sweep was signed (it is still on the address).
 */
export async function sweptResult(
  d: SweepDeps,
  row: SettlementRow,
  signed: TransactionJson,
  sweptAt: Date = d.ctx.clock.now(),
): Promise<StepResult> {
  const rest = await sweepableRest(d, row);
  return {
    kind: "done",
    again: rest >= d.ctx.config.sweepMinUsdt,
    patch: { step: "swept", swept_at: sweptAt },
    event: {
      amount: formatAmount(BigInt(row.amount ?? 0)),
      sweep_tx_hash: signed.txID,
      fee_tx_hash: row.fee_tx_hash,
      fee_trx: row.fee_trx === null ? null : formatAmount(BigInt(row.fee_trx)),
      cold_wallet_address: d.cold,
    },
  };
}
