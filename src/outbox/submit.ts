/**
 * submit(): one transaction into the EVM outbox, idempotent on (chain, purpose, ref). The nonce comes
 * from the sender's cursor row (locked for the transaction, so replicas never hand one out twice;
 * created from the node's `pending` count on first use); the transaction is signed, stored in the
 * same database transaction, and only then broadcast. A crash between storing and broadcasting
 * leaves a `signed` row that the outbox's pass broadcasts (run-outbox.ts).
 */
import { TransactionRollbackError } from "drizzle-orm";
import type { NonceSending, TransactionSigner } from "../chains/chain.js";
import type { ChainId } from "../chains/chain-types.js";
import type { Context } from "../context.js";
import { newCaps } from "./fees.js";
import {
  findByPurpose,
  hasCursor,
  initCursor,
  insertVersion,
  markBroadcast,
  takeNonce,
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
}

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
  check(input);
  const nonces = nonceSendingOf(ctx, chainId);
  const existing = live(await findByPurpose(ctx.db, chainId, input.purpose, input.ref));
  if (existing) return { created: false, transaction: existing };
  const signer = input.signer ?? hotWalletSigner(ctx, chainId);
  if (!(await hasCursor(ctx.db, chainId, signer.address)))
    await initCursor(
      ctx.db,
      chainId,
      signer.address,
      await nonces.nonceOf(signer.address, "pending"),
      ctx.clock.now(),
    );
  const caps = newCaps(await nonces.fees());
  const stored = await ctx.db
    .transaction(async (tx) => {
      const at = ctx.clock.now();
      const nonce = await takeNonce(tx, chainId, signer.address, at);
      if (nonce === undefined) throw new Error(`no nonce cursor for ${signer.address} on ${chainId}`);
      const fields = {
        nonce,
        to: input.to,
        data: input.data ?? "0x",
        value: input.value ?? 0n,
        gasLimit: input.gasLimit,
        ...caps,
      };
      const signed = await signer.sign(fields);
      const id = await insertVersion(
        tx,
        {
          chain: chainId,
          sender: signer.address,
          purpose: input.purpose,
          ref: input.ref,
          generation: 0,
          ...fields,
          ...signed,
        },
        at,
      );
      // Another process stored this purpose first: give the nonce back by rolling back.
      if (id === undefined) tx.rollback();
      return id;
    })
    .catch((error: unknown) => {
      if (error instanceof TransactionRollbackError) return undefined;
      throw error;
    });
  const rows = await findByPurpose(ctx.db, chainId, input.purpose, input.ref);
  const row = live(rows);
  if (!row) throw new Error(`the outbox lost ${input.purpose} ${input.ref}`);
  if (stored === undefined) return { created: false, transaction: row };
  await sendRow(ctx, nonces, row);
  return {
    created: true,
    transaction: live(await findByPurpose(ctx.db, chainId, input.purpose, input.ref)) ?? row,
  };
}

export type SendOutcome = "sent" | "refused" | "failed";

/**
 * Sends a stored version's bytes and records it. A node that refuses them or cannot be reached
 * leaves the row as it was: the outbox's pass sends it again, and fills the nonce if the node
 * never takes it. "Nonce too low" counts as sent: the pass then finds which version landed.
 */
export async function sendRow(ctx: Context, nonces: NonceSending, row: OutboxRow): Promise<SendOutcome> {
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
  const head = await ctx.chains
    .get(row.chain as ChainId)
    ?.headNumber()
    .catch(() => null);
  await markBroadcast(ctx.db, row.id, ctx.clock.now(), head ?? null);
  return "sent";
}
