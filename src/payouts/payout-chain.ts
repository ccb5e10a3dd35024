/**
 * The payout sender's side of the chain: the hot wallet and the node it sends with, the chain reads
 * one round shares (SendRound), and the signing of a USDT transfer hot -> destination, built and
 * signed locally on the sweeper's machinery (src/sweeps/sweep-chain.ts).
 *
 * One round shares its chain reads: the solidified head, the head block (the reference block of
 * every transaction it signs), the chain's prices, the energy of each transfer it signs,
 * and the float (read once; each payout the round stores is added to it). Each is read when first
 * needed; the head block is read again once it is REF_BLOCK_REUSE_MS old by the clock, so what the
 * round signs late in a long round still has most of its 60 s before expiration.
 */
import type { Context } from "../context.js";
import { refBlock } from "../sweeps/sweep-chain.js";
import { sweepFeeLimit } from "../sweeps/sweep-plan.js";
import type { SweepDeps } from "../sweeps/sweep-types.js";
import { encodeTransfer } from "@stablegate/tron/abi";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import type { TransactionJson } from "@stablegate/tron/protobuf";
import { signTransaction } from "@stablegate/tron/sign";
import { buildTriggerSmartContract, type RefBlock } from "@stablegate/tron/transaction";
import { readSenderFloat, type SenderFloat } from "./payout-float.js";

/** How long a round reuses the head block as the reference block of what it signs. */
const REF_BLOCK_REUSE_MS = 5_000;

/**
 * The hot wallet and the node, or null where this process cannot send (no key, no USDT contract).
 * The node is pinned: every call of the round goes to the one node the pool prefers now, and a
 * failure ends the round rather than moving to another node mid-judgement (docs/payouts.md
 * "Judged on one node").
 */
export function payoutDeps(ctx: Context, owner: string): SweepDeps | null {
  const key = ctx.config.hotWalletPrivateKey;
  const usdt = ctx.chain.usdtContract;
  if (!key || !usdt) return null;
  const hotAddress = addressFromPrivateKey(key);
  return {
    ctx,
    client: ctx.chain.client.select(),
    usdt,
    cold: ctx.config.coldWalletAddress ?? hotAddress,
    hotKey: key,
    hotAddress,
    mnemonic: "",
    owner,
  };
}

export interface Head {
  number: number;
  timestamp: number;
}

function headOf(block: { block_header: { raw_data: { number?: number; timestamp?: number } } }): Head {
  return {
    number: block.block_header.raw_data.number ?? 0,
    timestamp: block.block_header.raw_data.timestamp ?? 0,
  };
}

/** Reads once per round; a failed read is read again by the next caller. */
function memo<T>(read: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= read();
    value.catch(() => (value = undefined));
    return value;
  };
}

/** The chain reads one round shares (see the header), and what the round reserved of the float. */
export interface SendRound {
  solidHead: () => Promise<Head>;
  /** When (by the clock, ms) the round read its solidified head; 0 before it has. */
  solidReadAt: number;
  head: () => Promise<RefBlock & { timestamp: number }>;
  prices: () => Promise<{ energyPriceSun: bigint; bandwidthPriceSun: bigint }>;
  /** The energy a USDT transfer costs (estimated once per recipient and amount, per round). */
  energy: (data: string) => Promise<number>;
  float: () => Promise<SenderFloat>;
  /** What this round stored or is storing, on top of the float's `committed`. */
  reserved: bigint;
  /** Transactions this round signed: each one's timestamp is the reference block's + this count. */
  signed: number;
}

export function newSendRound(d: SweepDeps): SendRound {
  const { clock } = d.ctx;
  let head: { at: number; block: Promise<RefBlock & { timestamp: number }> } | undefined;
  const energy = new Map<string, Promise<number>>();
  const round: SendRound = {
    solidHead: memo(async () => {
      const solid = headOf(await d.client.getSolidifiedNowBlock());
      round.solidReadAt = clock.now().getTime();
      return solid;
    }),
    solidReadAt: 0,
    head: () => {
      const now = clock.now().getTime();
      if (!head || now - head.at > REF_BLOCK_REUSE_MS) {
        const block = refBlock(d);
        head = { at: now, block };
        block.catch(() => (head = undefined));
      }
      return head.block;
    },
    prices: memo(async () => {
      const params = await d.client.getChainParameters();
      return {
        energyPriceSun: BigInt(params.getEnergyFee ?? 420),
        bandwidthPriceSun: BigInt(params.getTransactionFee ?? 1000),
      };
    }),
    energy: (data) => {
      let estimate = energy.get(data);
      if (!estimate) {
        estimate = d.client.estimateEnergy({ owner: d.hotAddress, contract: d.usdt, data });
        energy.set(data, estimate);
        estimate.catch(() => energy.delete(data));
      }
      return estimate;
    },
    // The solidified head first, then the balance on the solidified state (payout-float.ts).
    float: memo(async () => readSenderFloat(d, await round.solidHead())),
    reserved: 0n,
    signed: 0,
  };
  return round;
}

/** A signed transfer, and the same transfer signed with its timestamp moved by `bump` ms. */
export interface Signing {
  tx: TransactionJson;
  again: (bump: number) => TransactionJson;
}

/** Builds and signs the USDT transfer of `amount` to `to`. Nothing is stored. */
export async function signTransfer(
  d: SweepDeps,
  to: string,
  amount: bigint,
  round: SendRound,
): Promise<Signing> {
  const data = encodeTransfer(to, amount);
  const [energy, prices, ref] = await Promise.all([round.energy(data), round.prices(), round.head()]);
  const feeLimit = sweepFeeLimit({ energy: BigInt(energy), ...prices });
  // The timestamp is the reference block's plus a count of the round's signatures, so two payouts
  // of one amount to one address are two transactions, never one id.
  const again = (bump: number) =>
    signTransaction(
      buildTriggerSmartContract({
        owner: d.hotAddress,
        contract: d.usdt,
        data,
        feeLimit,
        refBlock: ref,
        nowMs: ref.timestamp,
        timestampMs: ref.timestamp + bump,
      }),
      d.hotKey,
    );
  return { tx: again(round.signed++), again };
}

/** Past the moment the solidified head should reach a block, so the look finds it there. */
const SOLID_MARGIN_MS = 250;

/**
 * How long from now until the solidified head should reach `block`: the blocks still to go at the
 * pace the chain shows between the solidified head and the head, counted from when the round read
 * the solidified head (not from now: a long round would look late), a little past it. Within
 * maxMs, and at least minMs, or one block where the pace is known and shorter (a look that came a
 * block early comes back one block later, not minMs later).
 */
export async function untilSolid(
  round: SendRound,
  block: number,
  minMs: number,
  maxMs: number,
  now: number,
): Promise<number> {
  const [solid, head] = await Promise.all([round.solidHead(), round.head()]);
  const headNumber = Number(head.number);
  const perBlock =
    headNumber > solid.number ? (head.timestamp - solid.timestamp) / (headNumber - solid.number) : 0;
  const elapsed = Math.max(0, now - round.solidReadAt);
  const ms = Math.ceil((block - solid.number) * perBlock) + SOLID_MARGIN_MS - elapsed;
  const least = perBlock > 0 ? Math.min(minMs, Math.ceil(perBlock)) : minMs;
  return Math.min(maxMs, Math.max(least, Number.isFinite(ms) ? ms : 0));
}
