/**
 * The names the whole service shares about chains: which chains exist, which currencies, and which
 * family implements each chain. A chain is one network the service watches (`tron`, `ethereum`,
 * ...); a family is one implementation of the chain boundary (chain.ts) shared by the chains that
 * work alike (every EVM network is `evm`). Domain code carries a ChainId as data and never branches
 * on its value: what differs lives in src/chains/<family>/.
 */

export const CHAIN_IDS = ["tron", "ethereum", "bsc", "polygon", "arbitrum", "base"] as const;
export type ChainId = (typeof CHAIN_IDS)[number];

export const CURRENCIES = ["USDT", "USDC"] as const;
export type Currency = (typeof CURRENCIES)[number];

export const CHAIN_FAMILIES = ["tron", "evm"] as const;
export type ChainFamilyName = (typeof CHAIN_FAMILIES)[number];

/** Which family implements each chain: a new EVM network is one row here and a config entry. */
export const FAMILY_OF: Readonly<Record<ChainId, ChainFamilyName>> = Object.freeze({
  tron: "tron",
  ethereum: "evm",
  bsc: "evm",
  polygon: "evm",
  arbitrum: "evm",
  base: "evm",
});

/**
 * How people name each chain and its token standard (the checkout page, the dashboard): "USDC
 * (ERC-20) on Ethereum". Data only; what a chain does differently lives behind chain.ts.
 */
export const CHAIN_LABELS: Readonly<
  Record<ChainId, { name: string; tokenStandard: string; /** the coin that pays gas */ nativeSymbol: string }>
> = Object.freeze({
  tron: { name: "TRON", tokenStandard: "TRC20", nativeSymbol: "TRX" },
  ethereum: { name: "Ethereum", tokenStandard: "ERC-20", nativeSymbol: "ETH" },
  bsc: { name: "BNB Smart Chain", tokenStandard: "BEP-20", nativeSymbol: "BNB" },
  polygon: { name: "Polygon", tokenStandard: "ERC-20", nativeSymbol: "POL" },
  arbitrum: { name: "Arbitrum One", tokenStandard: "ERC-20", nativeSymbol: "ETH" },
  base: { name: "Base", tokenStandard: "ERC-20", nativeSymbol: "ETH" },
});

/** The coin that pays `chain`'s fees (a chain name this version does not know: ETH, as most L2s). */
export function nativeSymbol(chain: string): string {
  return CHAIN_LABELS[chain as ChainId]?.nativeSymbol ?? "ETH";
}

export function isChainId(value: string): value is ChainId {
  return (CHAIN_IDS as readonly string[]).includes(value);
}

export function isCurrency(value: string): value is Currency {
  return (CURRENCIES as readonly string[]).includes(value);
}

/**
 * A stored currency (orders.currency, ...) as the Currency it must be: the writers only ever store
 * one; anything else is a broken row, thrown rather than credited to some other balance.
 */
export function storedCurrency(value: string): Currency {
  if (!isCurrency(value))
    throw new Error(`stored currency ${JSON.stringify(value)} is not one of ${CURRENCIES.join(", ")}`);
  return value;
}
