/**
 * A new version of a transaction at the same nonce (a replacement at higher fee caps, or a filler
 * that takes a lost transaction's nonce): signed, then stored in one database transaction that
 * retires the old version, so at most one version of a nonce is ever live. The caller sends it.
 */
import type { TransactionSigner } from "../chains/chain.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { insertVersion, retire, type NewVersion, type OutboxRow } from "./outbox-store.js";

/**
 * Signs `version` at `old`'s nonce and, in one database transaction, retires `old` (unless another
 * process did first: then nothing is stored and undefined is answered), stores the new version and
 * runs `onStore` (the caller's own record of it commits with it or not at all). Answers the stored,
 * not yet sent, row.
 */
export async function supersede(
  ctx: Context,
  signer: TransactionSigner,
  old: OutboxRow,
  state: "replaced" | "dropped",
  note: string,
  version: Omit<NewVersion, "raw" | "hash">,
  onStore?: (tx: Executor, stored: { id: string; hash: string }) => Promise<void>,
): Promise<OutboxRow | undefined> {
  const signed = await signer.sign(version);
  const next = { ...version, ...signed };
  const id = await ctx.db.transaction(async (tx) => {
    const at = ctx.clock.now();
    if (!(await retire(tx, old.id, state, note, at))) return undefined;
    const stored = await insertVersion(tx, next, at);
    if (stored !== undefined) await onStore?.(tx, { id: stored, hash: next.hash });
    return stored;
  });
  if (id === undefined) return undefined;
  const unsent = { firstBroadcastAt: null, broadcastAt: null, broadcastHead: null };
  return {
    ...old,
    ...next,
    ...unsent,
    id,
    state: "signed",
    createdAt: ctx.clock.now().getTime(),
    blockNumber: null,
    blockHash: null,
    success: null,
    note: null,
  };
}
