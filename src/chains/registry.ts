/**
 * ctx.chains: the enabled chains, one boundary implementation (chain.ts) each, built by their
 * family from the configuration. Domain code asks the registry for a chain by the id an order or
 * a transfer carries, or for the primary chain (the one an order gets when it names none).
 */
import type { Chain } from "./chain.js";
import { CURRENCIES, type ChainId, type Currency } from "./chain-types.js";

export interface ChainRegistry {
  /** Every enabled chain, the primary first. */
  readonly list: readonly Chain[];
  /** The chain of an order that names none. */
  readonly primary: Chain;
  /** The enabled chain with this id, or undefined. */
  get(id: ChainId): Chain | undefined;
  /** Closes every chain's node connections. */
  close(): Promise<void>;
}

export function chainRegistry(chains: readonly Chain[]): ChainRegistry {
  const [primary] = chains;
  if (!primary) throw new Error("no chain is enabled");
  const byId = new Map<ChainId, Chain>();
  for (const chain of chains) {
    if (byId.has(chain.id)) throw new Error(`chain ${chain.id} is enabled twice`);
    byId.set(chain.id, chain);
  }
  const list = Object.freeze([...chains]);
  return {
    list,
    primary,
    get: (id) => byId.get(id),
    close: async () => {
      await Promise.all(list.map((chain) => chain.close()));
    },
  };
}

/** The currencies some enabled chain takes, in CURRENCIES' order (USDT, USDC). */
export function enabledCurrencies(chains: Pick<ChainRegistry, "list">): Currency[] {
  return CURRENCIES.filter((currency) => chains.list.some((chain) => chain.currencies.includes(currency)));
}
