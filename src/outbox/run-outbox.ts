/**
 * runOutbox(): one pass of the EVM outbox over a chain, for every sender with unsettled
 * transactions. Per nonce, from the sender's `latest` transaction count and receipts:
 * - a nonce the chain has used: the version whose receipt exists landed (included, or final once
 *   its block is at or below the chain's final head); every other version of it is replaced;
 * - an included transaction whose receipt is gone (a reorganisation) is sent again, the same bytes;
 * - a pending one is sent (a `signed` row, every row on a process's first pass, or one the node no
 *   longer has), replaced at >= +12.5% fee caps when it sits below the market past the wait, and
 *   its nonce filled by a 0-value self-transfer when the node refuses its bytes while it is the
 *   sender's next nonce (so later nonces are not stuck). The purpose that lost it is told.
 */
import type { NonceSending } from "../chains/chain.js";
import type { ChainId } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import { eachLimit } from "../each-limit.js";
import { belowMarket, replacementCaps, type MarketFees } from "./fees.js";
import {
  type NewVersion,
  markLanded,
  markUnincluded,
  retire,
  unsettledNonces,
  unsettledSenders,
  type OutboxRow,
} from "./outbox-store.js";
import type { SignerLookup } from "./signers.js";
import { sendRow } from "./submit.js";
import { supersede as supersedeVersion } from "./supersede.js";

export interface OutboxOptions {
  /** Signers by sender, to replace and fill; a sender without one is only re-sent. */
  signers: SignerLookup;
  /** A transaction below the market is replaced this long after its first broadcast (default 30 s)... */
  replaceAfterMs?: number;
  /** ...or this many blocks after it (default 3), whichever comes first. */
  replaceAfterBlocks?: number;
  /** A pending transaction is looked up at the node again this long after its last send (default 15 s). */
  recheckAfterMs?: number;
  /** Send every pending version's bytes again: the first pass of a process (after a restart). */
  resendAll?: boolean;
  /** Told of a transaction whose nonce was filled or used by another: its purpose re-plans. */
  onDropped?: (row: OutboxRow) => Promise<void> | void;
  /** Nonces worked on at once per sender (default 16). */
  concurrency?: number;
  signal?: AbortSignal;
}

export interface OutboxPass {
  sent: number;
  landed: number;
  final: number;
  reorganised: number;
  replaced: number;
  filled: number;
  dropped: OutboxRow[];
}

/** How long a transaction below the market waits before it is replaced (OutboxOptions). */
export const REPLACE_AFTER_MS = 30_000;
export const REPLACE_AFTER_BLOCKS = 3;

export type ReplaceRule = Pick<OutboxOptions, "replaceAfterMs" | "replaceAfterBlocks">;

/**
 * Whether `row` has waited long enough since its first broadcast to be replaced when it is below
 * the market: `replaceAfterMs`, or `replaceAfterBlocks` blocks, whichever comes first. The outbox's
 * rule, and the sweeper's for a deposit address's sweep (src/sweeps/evm-sweep-bump.ts).
 */
export function waitedToReplace(
  row: Pick<OutboxRow, "firstBroadcastAt" | "broadcastHead">,
  nowMs: number,
  head: number,
  rule: ReplaceRule = {},
): boolean {
  const waitedMs = nowMs - (row.firstBroadcastAt ?? nowMs);
  const waitedBlocks = head - (row.broadcastHead ?? head);
  return (
    waitedMs >= (rule.replaceAfterMs ?? REPLACE_AFTER_MS) ||
    waitedBlocks >= (rule.replaceAfterBlocks ?? REPLACE_AFTER_BLOCKS)
  );
}

/** What a 0-value self-transfer costs. */
const FILL_GAS = 21_000n;

const isLive = (row: OutboxRow) => ["signed", "broadcast", "included", "final"].includes(row.state);

interface SenderView {
  ctx: Context;
  nonces: NonceSending;
  options: OutboxOptions;
  pass: OutboxPass;
  mined: number;
  head: number;
  finalNumber: number;
  market: MarketFees;
}

export async function runOutbox(ctx: Context, chainId: ChainId, options: OutboxOptions): Promise<OutboxPass> {
  const pass: OutboxPass = {
    sent: 0,
    landed: 0,
    final: 0,
    reorganised: 0,
    replaced: 0,
    filled: 0,
    dropped: [],
  };
  const chain = ctx.chains.get(chainId);
  const nonces = chain?.nonces;
  if (!chain || !nonces) throw new Error(`${chainId} is not an enabled chain with account nonces`);
  const senders = await unsettledSenders(ctx.db, chainId);
  if (senders.length === 0) return pass;
  const signal = options.signal ?? AbortSignal.timeout(60_000);
  const [head, final, market] = await Promise.all([
    chain.headNumber(),
    chain.finalHead({ signal, log: ctx.log }),
    nonces.fees(),
  ]);
  for (const sender of senders) {
    const [rows, mined] = await Promise.all([
      unsettledNonces(ctx.db, chainId, sender),
      nonces.nonceOf(sender, "latest"),
    ]);
    const view: SenderView = { ctx, nonces, options, pass, mined, head, finalNumber: final.number, market };
    const byNonce = new Map<number, OutboxRow[]>();
    for (const row of rows) byNonce.set(row.nonce, [...(byNonce.get(row.nonce) ?? []), row]);
    await eachLimit([...byNonce.values()], options.concurrency ?? 16, (versions) =>
      workNonce(view, versions),
    );
  }
  return pass;
}

async function workNonce(view: SenderView, versions: OutboxRow[]): Promise<void> {
  const live = versions.find(isLive);
  if (!live || live.state === "final") return;
  if (live.nonce < view.mined) return settle(view, live, versions);
  if (live.state === "included") {
    // Its block was reorganised away and the nonce is open again: the same bytes go out again.
    await markUnincluded(view.ctx.db, live.id, view.ctx.clock.now());
    view.pass.reorganised++;
    view.ctx.log.warn(
      { chain: live.chain, hash: live.hash, nonce: live.nonce },
      "outbox: reorganised out, re-sending",
    );
    return resend(view, { ...live, state: "broadcast" });
  }
  const now = view.ctx.clock.now().getTime();
  const recheck = view.options.recheckAfterMs ?? 15_000;
  // A `signed` row is being sent by its submitter; one left so past the recheck wait was not.
  if (view.options.resendAll || (live.state === "signed" && now - live.createdAt >= recheck))
    return resend(view, live);
  if (live.state === "signed") return;
  if (live.broadcastAt === null || now - live.broadcastAt >= recheck) {
    if (!(await view.nonces.known(live.hash))) return resend(view, live);
  }
  if (waitedToReplace(live, now, view.head, view.options) && belowMarket(live, view.market))
    await replace(view, live);
}

/** The chain has used this nonce: which version landed? */
async function settle(view: SenderView, live: OutboxRow, versions: OutboxRow[]): Promise<void> {
  const { ctx } = view;
  // The live version first, then the others newest first: any of them may be the one that landed.
  const order = [live, ...versions.filter((v) => v !== live).reverse()];
  for (const version of order) {
    const receipt = await view.nonces.receipt(version.hash);
    if (!receipt) continue;
    const final = receipt.blockNumber <= view.finalNumber;
    if (version === live && live.state === "included" && live.blockHash === receipt.blockHash && !final)
      return;
    await ctx.db.transaction((tx) => markLanded(tx, version, receipt, final, ctx.clock.now()));
    if (final) view.pass.final++;
    else view.pass.landed++;
    return;
  }
  // No version of ours has a receipt though the nonce is used: another transaction took it.
  if (await view.nonces.known(live.hash)) return;
  const note = "the nonce was used by a transaction the outbox did not send";
  if (await retire(ctx.db, live.id, "dropped", note, ctx.clock.now()))
    await dropped(view, { ...live, state: "dropped", note });
}

async function resend(view: SenderView, row: OutboxRow): Promise<void> {
  const outcome = await sendRow(view.ctx, view.nonces, row, view.head);
  if (outcome === "sent") view.pass.sent++;
  // Refused while it is the sender's next nonce: every later nonce waits behind it. Fill it.
  if (outcome === "refused" && row.nonce === view.mined && row.purpose !== "gap_fill") await fill(view, row);
}

/** Re-signs `live` at the same nonce with higher fee caps; its bytes stay recorded. */
async function replace(view: SenderView, live: OutboxRow): Promise<void> {
  const caps = replacementCaps(live, view.market);
  const note = `replaced at max fee ${caps.maxFeePerGas}, tip ${caps.maxPriorityFeePerGas}`;
  const fields = { to: live.to, data: live.data, value: live.value, gasLimit: live.gasLimit, ...caps };
  const next = await supersede(view, live, "replaced", note, {
    ...live,
    ...fields,
    generation: live.generation + 1,
  });
  if (!next) return;
  view.pass.replaced++;
  view.ctx.log.info(
    { chain: live.chain, nonce: live.nonce, old: live.hash, hash: next.hash },
    "outbox: replaced below the market",
  );
  await resend(view, next);
}

/** A 0-value self-transfer at the lost transaction's nonce, priced to replace it anywhere. */
async function fill(view: SenderView, lost: OutboxRow): Promise<void> {
  const caps = replacementCaps(lost, view.market);
  const note = "the node refused its bytes at the sender's next nonce; the nonce was filled";
  const fields = { to: lost.sender, data: "0x", value: 0n, gasLimit: FILL_GAS, ...caps };
  const next = await supersede(view, lost, "dropped", note, {
    ...lost,
    ...fields,
    purpose: "gap_fill",
    ref: lost.id,
    generation: 0,
    // A plain self-transfer: the lost transaction's authorizations are not carried over.
    authorizations: undefined,
  });
  if (!next) return;
  view.pass.filled++;
  view.ctx.log.warn(
    { chain: lost.chain, nonce: lost.nonce, lost: lost.hash, fill: next.hash },
    "outbox: nonce filled",
  );
  await dropped(view, { ...lost, state: "dropped", note });
  await resend(view, next);
}

/** Signs `version` at `old`'s nonce with the sender's signer (none held: nothing) and stores it. */
async function supersede(
  view: SenderView,
  old: OutboxRow,
  state: "replaced" | "dropped",
  note: string,
  version: Omit<NewVersion, "raw" | "hash">,
): Promise<OutboxRow | undefined> {
  const signer = view.options.signers(old.sender);
  if (!signer) return undefined;
  return supersedeVersion(view.ctx, signer, old, state, note, version);
}

async function dropped(view: SenderView, row: OutboxRow): Promise<void> {
  view.pass.dropped.push(row);
  await view.options.onDropped?.(row);
}
