/**
 * Who signs in the outbox: a signer per sending address. The hot wallet's key comes from
 * EVM_HOT_WALLET_PRIVATE_KEY; a caller sending from another account (a deposit address's derived key,
 * for sweeps) passes its signer to submit() and the same signer to the pass, which needs it to
 * replace or fill that account's nonces.
 */
import type { NonceSending, TransactionSigner } from "../chains/chain.js";
import type { ChainId } from "../chains/chain-types.js";
import type { Context } from "../context.js";

/** Signers by address (stored form); undefined: this process holds no key for it. */
export type SignerLookup = (address: string) => TransactionSigner | undefined;

export function nonceSendingOf(ctx: Context, chainId: ChainId): NonceSending {
  const nonces = ctx.chains.get(chainId)?.nonces;
  if (!nonces) throw new Error(`${chainId} is not an enabled chain with account nonces`);
  return nonces;
}

export function hotWalletSigner(ctx: Context, chainId: ChainId): TransactionSigner {
  const key = ctx.config.evmWallet.hotWalletPrivateKey;
  if (key === undefined) throw new Error("EVM_HOT_WALLET_PRIVATE_KEY is not set: this process cannot send");
  return nonceSendingOf(ctx, chainId).signer(key);
}

/** The hot wallet's signer (when its key is set) and any others given. */
export function signerLookup(
  ctx: Context,
  chainId: ChainId,
  others: readonly TransactionSigner[] = [],
): SignerLookup {
  const byAddress = new Map(others.map((s) => [s.address, s]));
  if (ctx.config.evmWallet.hotWalletPrivateKey !== undefined) {
    const hot = hotWalletSigner(ctx, chainId);
    byAddress.set(hot.address, hot);
  }
  return (address) => byAddress.get(address);
}
