import { Fragment } from "react";
import type { WalletStatus } from "../../api-types.js";
import { CHAIN_LABELS, formatUsdt } from "../format.js";
import { Ident } from "../ui/Ident.js";

type EvmWallet = WalletStatus["evm_wallets"][number];

const chainName = (chain: string) => CHAIN_LABELS[chain as keyof typeof CHAIN_LABELS]?.name ?? chain;

/** "1.500000000000000000" ETH shown as "1.500000000000000000 ETH"; unknown as "unavailable". */
function native(balance: string | null, symbol: string): string {
  return balance === null ? `${symbol} unavailable` : `${balance} ${symbol}`;
}

type TokenBalances = NonNullable<EvmWallet["cold_wallet"]>["tokens"];

function Tokens({ tokens }: { tokens: TokenBalances }) {
  return (
    <dl>
      {tokens.map((token) => (
        <Fragment key={token.currency}>
          <dt>{token.currency}</dt>
          <dd>{token.balance === null ? "unavailable" : formatUsdt(token.balance, token.currency)}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

/**
 * Each enabled EVM chain's wallets: the hot wallet's gas coin and tokens (the payout float), and the
 * cold wallet's tokens. A chain whose node did not answer says so; its figures are the last good ones.
 */
export function EvmWallets({ wallets }: { wallets: EvmWallet[] }) {
  if (wallets.length === 0) return null;
  return (
    <div className="grid" data-testid="evm-wallets">
      {wallets.map((w) => (
        <section className="panel" key={w.chain} data-testid={`evm-wallet-${w.chain}`}>
          <h2>{chainName(w.chain)} wallets</h2>
          {w.balance_error && (
            <p className="error" role="status" data-testid={`evm-wallet-${w.chain}-error`}>
              Balances not current: {w.balance_error}
            </p>
          )}
          <h3>Hot wallet (gas and payouts)</h3>
          {w.hot_wallet ? (
            <>
              <p className="big" data-testid={`evm-wallet-${w.chain}-native`}>
                {native(w.hot_wallet.native_balance, w.native_symbol)}
              </p>
              <Tokens tokens={w.hot_wallet.tokens} />
              <p>
                <Ident value={w.hot_wallet.address} />
              </p>
            </>
          ) : (
            <p className="muted">
              Not configured: set <code data-verbatim>EVM_HOT_WALLET_PRIVATE_KEY</code>.
            </p>
          )}
          <h3>Cold wallet</h3>
          {w.cold_wallet ? (
            <>
              <Tokens tokens={w.cold_wallet.tokens} />
              <p>
                <Ident value={w.cold_wallet.address} />
              </p>
            </>
          ) : (
            <p className="muted">
              Not configured: set <code data-verbatim>EVM_COLD_WALLET_ADDRESS</code>.
            </p>
          )}
        </section>
      ))}
    </div>
  );
}
