/**
 * submit(): one transaction into the EVM outbox, idempotent on (chain, purpose, ref). The nonce comes
 * from the sender's cursor row (locked for the transaction, so replicas never hand one out twice;
 * created from the node's `pending` count on first use); the transaction is signed, stored in the
 * same database transaction, and only then broadcast. A crash between storing and broadcasting
 * leaves a `signed` row that the outbox's pass broadcasts (run-outbox.ts).
 */
import { TransactionRollbackError } from "drizzle-orm";
import type { NonceSending, SignedAuthorization, TransactionSigner } from "../chains/chain.js";
import type { ChainId } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { newCaps, type FeeCaps } from "./fees.js";
import {
  findByPurpose,
  findByPurposes,
  hasCursor,
  initCursor,
  insertVersions,
  markBroadcast,
  takeNonces,
  type OutboxRow,
} from "./outbox-store.js";
import { hotWalletSigner, nonceSendingOf } from "./signers.js";

export interface SubmitInput {
  /** What the transaction pays: 'sweep_gas', 'sweep', 'payout', ... */
  purpose: string;
  /** The paying thing's id; (purpose, ref) names one transaction for good. */
  ref: string;
  /** Stored form (lowercase 0x hex). */
  to: string;
  /** Hex call data; default none. */
  data?: string;
  /** Native units (wei); default 0. */
  value?: bigint;
  gasLimit: bigint;
  /** The sending account; default the hot wallet (EVM_HOT_WALLET_PRIVATE_KEY). */
  signer?: TransactionSigner;
  /**
   * Fee caps to sign with instead of the market's (newCaps): a sweep from a deposit address offers
   * exactly the caps its top-up paid for, since the address can afford no more.
   */
  fees?: FeeCaps;
  /** EIP-7702 authorizations: the transaction is signed as type 4 and carries them. */
  authorizations?: readonly SignedAuthorization[];
}

/** A version as submitMany stores it: what the caller's `onStore` sees inside the same transaction. */
export interface StoredSubmission {
  purpose: string;
  ref: string;
  nonce: number;
  hash: string;
}

/**
 * Runs inside the database transaction that stores a batch's new transactions, after they are
 * inserted and before the commit: the caller's own state change commits with them or not at all
 * (a payout moves to `sending` with its transfer). Throwing rolls everything back, the nonces too.
 */
export type OnStore = (tx: Executor, stored: readonly StoredSubmission[]) => Promise<void>;

export interface SubmitResult {
  /** False when (purpose, ref) was submitted before: its transaction is answered. */
  created: boolean;
  transaction: OutboxRow;
}

const HEX_DATA = /^0x([0-9a-f]{2})*$/i;
const ADDRESS = /^0x[0-9a-f]{40}$/;

export class OutboxInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutboxInputError";
  }
}

function check(input: SubmitInput): void {
  if (!input.purpose || !input.ref) throw new OutboxInputError("purpose and ref are required");
  if (!ADDRESS.test(input.to)) throw new OutboxInputError("to must be a lowercase 0x address");
  if (input.data !== undefined && !HEX_DATA.test(input.data)) throw new OutboxInputError("data must be hex");
  if ((input.value ?? 0n) < 0n) throw new OutboxInputError("value must not be negative");
  if (input.gasLimit < 21_000n) throw new OutboxInputError("gasLimit must be at least 21000");
}

const LIVE = ["signed", "broadcast", "included", "final"];

/** A submission's live version (the one sent or landed), else its newest (replaced or dropped). */
const live = (rows: OutboxRow[]) => rows.find((r) => LIVE.includes(r.state)) ?? rows[0];

/**
 * Where (purpose, ref) stands: its live transaction, or `dropped` (its nonce was filled or used by
 * another transaction: the purpose re-plans under a new ref). Undefined: never submitted.
 */
export async function outboxTransaction(
  ctx: Context,
  chainId: ChainId,
  purpose: string,
  ref: string,
): Promise<OutboxRow | undefined> {
  return live(await findByPurpose(ctx.db, chainId, purpose, ref));
}

export async function submit(ctx: Context, chainId: ChainId, input: SubmitInput): Promise<SubmitResult> {
  const [result] = await submitMany(ctx, chainId, [input], input.signer);
  if (!result) throw new Error(`the outbox lost ${input.purpose} ${input.ref}`);
  return result;
}

/**
 * Several transactions from one sender in one database transaction: the cursor row is locked once
 * for the batch and hands out consecutive nonces, then every one is broadcast at once. Each input
 * is idempotent on (purpose, ref) as in submit(); the answers are in the inputs' order.
 */
export async function submitMany(
  ctx: Context,
  chainId: ChainId,
  inputs: readonly Omit<SubmitInput, "signer">[],
  signer: TransactionSigner = hotWalletSigner(ctx, chainId),
  onStore?: OnStore,
): Promise<SubmitResult[]> {
  inputs.forEach(check);
  const nonces = nonceSendingOf(ctx, chainId);
  const keyOf = (i: { purpose: string; ref: string }) => `${i.purpose}\u0000${i.ref}`;
  if (new Set(inputs.map(keyOf)).size !== inputs.length)
    throw new OutboxInputError("a batch names the same purpose and ref twice");
  const current = async () => {
    const rows = await findByPurposes(ctx.db, chainId, inputs);
    return inputs.map((i) => live(rows.filter((r) => r.purpose === i.purpose && r.ref === i.ref)));
  };
  const before = await current();
  const fresh = inputs.filter((_, n) => before[n] === undefined);
  if (fresh.length > 0 && !(await storeBatch(ctx, chainId, nonces, signer, fresh, onStore)))
    return submitMany(ctx, chainId, inputs, signer, onStore);
  const after = await current();
  const created = new Set(fresh.map(keyOf));
  const head = await ctx.chains
    .get(chainId)
    ?.headNumber()
    .catch(() => null);
  const unsent = after.filter((row) => row && created.has(keyOf(row)) && row.state === "signed");
  await Promise.all(unsent.map((row) => row && sendRow(ctx, nonces, row, head ?? null)));
  const final = await current();
  return inputs.map((input, n) => {
    const transaction = final[n];
    if (!transaction) throw new Error(`the outbox lost ${input.purpose} ${input.ref}`);
    return { created: created.has(keyOf(input)), transaction };
  });
}

/** Allocates, signs and stores `inputs`; false (nothing stored) when another process stored one first. */
async function storeBatch(
  ctx: Context,
  chainId: ChainId,
  nonces: NonceSending,
  signer: TransactionSigner,
  inputs: readonly Omit<SubmitInput, "signer">[],
  onStore?: OnStore,
): Promise<boolean> {
  const sender = signer.address;
  if (!(await hasCursor(ctx.db, chainId, sender)))
    await initCursor(ctx.db, chainId, sender, await nonces.nonceOf(sender, "pending"), ctx.clock.now());
  const caps = newCaps(await nonces.fees());
  return ctx.db
    .transaction(async (tx) => {
      const at = ctx.clock.now();
      const first = await takeNonces(tx, chainId, sender, inputs.length, at);
      if (first === undefined) throw new Error(`no nonce cursor for ${sender} on ${chainId}`);
      const versions = [];
      for (const [n, input] of inputs.entries()) {
        const fields = {
          nonce: first + n,
          to: input.to,
          data: input.data ?? "0x",
          value: input.value ?? 0n,
          gasLimit: input.gasLimit,
          ...(input.fees ?? caps),
          authorizations: input.authorizations,
        };
        const version = { chain: chainId, sender, purpose: input.purpose, ref: input.ref, generation: 0 };
        versions.push({ ...version, ...fields, ...(await signer.sign(fields)) });
      }
      // Another process stored one of these purposes first: give every nonce back by rolling back.
      if ((await insertVersions(tx, versions, at)).length < versions.length) tx.rollback();
      await onStore?.(
        tx,
        versions.map((v) => ({ purpose: v.purpose, ref: v.ref, nonce: v.nonce, hash: v.hash })),
      );
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof TransactionRollbackError) return false;
      throw error;
    });
}

export type SendOutcome = "sent" | "refused" | "failed";

/**
 * Sends a stored version's bytes and records it. A node that refuses them or cannot be reached
 * leaves the row as it was: the outbox's pass sends it again, and fills the nonce if the node
 * never takes it. "Nonce too low" counts as sent: the pass then finds which version landed.
 */
export async function sendRow(
  ctx: Context,
  nonces: NonceSending,
  row: OutboxRow,
  head?: number | null,
): Promise<SendOutcome> {
  try {
    const result = await nonces.broadcast(row.raw);
    if (result.kind === "refused") {
      ctx.log.warn(
        { chain: row.chain, hash: row.hash, nonce: row.nonce, reason: result.message },
        "outbox: broadcast refused",
      );
      return "refused";
    }
  } catch (error) {
    ctx.log.warn(
      { chain: row.chain, hash: row.hash, err: (error as Error).message },
      "outbox: broadcast failed",
    );
    return "failed";
  }
  const at =
    head !== undefined
      ? head
      : await ctx.chains
          .get(row.chain as ChainId)
          ?.headNumber()
          .catch(() => null);
  await markBroadcast(ctx.db, row.id, ctx.clock.now(), at ?? null);
  return "sent";
}
