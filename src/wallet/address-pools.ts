/**
 * The address pools: one per chain family among the enabled chains (migration 0022). A family's
 * pool is shared by all its chains (one EVM address serves one order at a time across every EVM
 * chain), derived from the family's account-level xpub by the family's derivation (the boundary's
 * `derivation` of any of its chains: they all derive alike).
 */
import type { AddressDerivation } from "../chains/chain.js";
import type { ChainFamilyName } from "../chains/chain-types.js";
import type { Config } from "../config.js";
import type { Context } from "../context.js";
import { AppError } from "../errors.js";

export interface AddressPool {
  family: ChainFamilyName;
  derivation: AddressDerivation;
  /** Account level (TRON m/44'/195'/0', EVM m/44'/60'/0'); the pool is its branch 0. */
  xpub: string;
}

/** Where each family's account-level xpub is configured. */
const XPUB_OF: Readonly<Record<ChainFamilyName, (config: Config) => string | undefined>> = {
  tron: (config) => config.walletXpub,
  evm: (config) => config.evmWallet.xpub,
};

function poolOf(ctx: Context, family: ChainFamilyName): AddressPool | undefined {
  const chain = ctx.chains.list.find((candidate) => candidate.family === family);
  const xpub = XPUB_OF[family](ctx.config);
  if (!chain || xpub === undefined) return undefined;
  return { family, derivation: chain.derivation, xpub };
}

/** The pools of the enabled chains' families, the primary chain's first. */
export function addressPools(ctx: Context): AddressPool[] {
  const families = [...new Set(ctx.chains.list.map((chain) => chain.family))];
  return families.flatMap((family) => poolOf(ctx, family) ?? []);
}

/** The pool of `family` (the primary chain's by default); refused when no enabled chain has it. */
export function addressPool(ctx: Context, family: ChainFamilyName = ctx.chains.primary.family): AddressPool {
  const pool = poolOf(ctx, family);
  if (!pool) throw new AppError("INTERNAL_ERROR", `no enabled chain derives ${family} addresses`);
  return pool;
}
