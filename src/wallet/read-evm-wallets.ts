/**
 * The EVM wallets on the wallet page (issue 40): per enabled chain that sends by nonce (every EVM
 * chain), the hot wallet's native balance (gas for sweeps and payouts) and token balances (the
 * payout float), and the cold wallet's token balances, read through the chain boundary
 * (`Chain.nonces.nativeBalance` / `tokenBalance`). A chain's reading is kept in the process state
 * (ctx.local) for BALANCE_CACHE_MS, as the TRON reads are, so dashboards that poll do not each ask
 * the node; a node that fails is reported on that chain (`balance_error`, the last good figures
 * kept), never as an error reply. Token balances are read for the chain's known tokens
 * (`Chain.tokens`: filled once the chain has read its contracts' decimals, on its scanner's first
 * pass or a checkout); before that a token's balance is null.
 */
import type { Chain } from "../chains/chain.js";
import { CHAIN_LABELS } from "../chains/chain-types.js";
import { formatUnits, unitsToMicro } from "../chains/token-units.js";
import type { Context } from "../context.js";
import { localSlot } from "../local-state.js";
import { formatAmount } from "../money.js";

/** Dashboards poll; each chain's balances are read from its node at most this often. */
export const EVM_BALANCE_CACHE_MS = 10_000;
/** The native coin's decimals on every EVM chain (wei). */
const NATIVE_DECIMALS = 18;

export interface EvmTokenBalance {
  currency: string;
  /** Whole micro-units, 6 decimals; null when the node did not answer. */
  balance: string | null;
}

export interface EvmWalletView {
  chain: string;
  /** The coin that pays gas (ETH, BNB, POL). */
  native_symbol: string;
  hot_wallet: {
    address: string;
    /** 18 decimals, exact; null when the node did not answer. */
    native_balance: string | null;
    tokens: EvmTokenBalance[];
  } | null;
  cold_wallet: { address: string; tokens: EvmTokenBalance[] } | null;
  /** When the figures were read from the node (ISO); null before any answer. */
  read_at: string | null;
  /** Present when the last read failed: the figures are then the last good ones (or null). */
  balance_error?: string;
}

interface Reading {
  hotNative: bigint | null;
  hotTokens: Map<string, bigint>;
  coldTokens: Map<string, bigint>;
  at: number;
}

interface ChainCache {
  /** When the node was last asked (a failure too), and the last good reading. */
  askedAt: number;
  error: string | undefined;
  good: Reading | undefined;
  /** One read at a time per chain: concurrent requests share it. */
  inFlight: Promise<void> | undefined;
}

const cacheSlot = localSlot("evm wallet balances", () => new Map<string, ChainCache>());

/** The EVM hot wallet on `chain`: EVM_HOT_WALLET_ADDRESS, or the key's address; undefined unset. */
export function evmHotAddress(ctx: Context, chain: Chain): string | undefined {
  const { hotWalletAddress, hotWalletPrivateKey } = ctx.config.evmWallet;
  if (hotWalletAddress !== undefined) return chain.address.normalise(hotWalletAddress);
  if (hotWalletPrivateKey !== undefined) return chain.nonces?.signer(hotWalletPrivateKey).address;
  return undefined;
}

function coldAddress(ctx: Context, chain: Chain): string | undefined {
  const configured = ctx.config.evmChains.find((c) => c.id === chain.id)?.coldWalletAddress;
  return configured === undefined ? undefined : chain.address.normalise(configured);
}

async function read(
  chain: Chain,
  hot: string | undefined,
  cold: string | undefined,
  at: number,
): Promise<Reading> {
  const nonces = chain.nonces;
  if (!nonces) throw new Error(`${chain.id} does not send by nonce`);
  const tokensOf = async (holder: string | undefined) => {
    const balances = new Map<string, bigint>();
    if (holder === undefined) return balances;
    const read = await Promise.all(chain.tokens.map((token) => nonces.tokenBalance(token.contract, holder)));
    chain.tokens.forEach((token, i) =>
      balances.set(token.currency, unitsToMicro(read[i] ?? 0n, token.decimals).micro),
    );
    return balances;
  };
  const [hotNative, hotTokens, coldTokens] = await Promise.all([
    hot === undefined ? null : nonces.nativeBalance(hot),
    tokensOf(hot),
    tokensOf(cold),
  ]);
  return { hotNative, hotTokens, coldTokens, at };
}

async function refresh(
  ctx: Context,
  chain: Chain,
  entry: ChainCache,
  hot?: string,
  cold?: string,
): Promise<void> {
  const now = ctx.clock.now().getTime();
  try {
    entry.good = await read(chain, hot, cold, now);
    entry.error = undefined;
  } catch (error) {
    ctx.log.warn({ err: error, chain: chain.id }, "EVM wallet balances unavailable");
    entry.error = `${CHAIN_LABELS[chain.id].name} node did not answer`;
  } finally {
    entry.askedAt = now;
  }
}

export async function readEvmWallets(ctx: Context): Promise<EvmWalletView[]> {
  const chains = ctx.chains.list.filter((chain) => chain.nonces !== undefined);
  const cache = ctx.local.get(cacheSlot);
  return Promise.all(
    chains.map(async (chain): Promise<EvmWalletView> => {
      const hot = evmHotAddress(ctx, chain);
      const cold = coldAddress(ctx, chain);
      let entry = cache.get(chain.id);
      if (!entry) {
        entry = { askedAt: -Infinity, error: undefined, good: undefined, inFlight: undefined };
        cache.set(chain.id, entry);
      }
      const now = ctx.clock.now().getTime();
      if (now - entry.askedAt >= EVM_BALANCE_CACHE_MS && (hot !== undefined || cold !== undefined)) {
        const current = entry;
        current.inFlight ??= refresh(ctx, chain, current, hot, cold).finally(() => {
          current.inFlight = undefined;
        });
        await current.inFlight;
      }
      const good = entry.good;
      const tokens = (balances: Map<string, bigint> | undefined): EvmTokenBalance[] =>
        chain.currencies.map((currency) => {
          const micro = balances?.get(currency);
          return { currency, balance: micro === undefined ? null : formatAmount(micro) };
        });
      return {
        chain: chain.id,
        native_symbol: CHAIN_LABELS[chain.id].nativeSymbol,
        hot_wallet:
          hot === undefined
            ? null
            : {
                address: hot,
                native_balance:
                  good?.hotNative === undefined || good.hotNative === null
                    ? null
                    : formatUnits(good.hotNative, NATIVE_DECIMALS),
                tokens: tokens(good?.hotTokens),
              },
        cold_wallet: cold === undefined ? null : { address: cold, tokens: tokens(good?.coldTokens) },
        read_at: good === undefined ? null : new Date(good.at).toISOString(),
        ...(entry.error === undefined ? {} : { balance_error: entry.error }),
      };
    }),
  );
}
