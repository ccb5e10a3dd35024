import { Fragment } from "react";
import type { WalletStatus } from "../../api-types.js";
import { CHAIN_LABELS, formatNative, formatUsdt } from "../format.js";
import { Ident } from "../ui/Ident.js";

type EvmWallet = WalletStatus["evm_wallets"][number];

const chainName = (chain: string) => CHAIN_LABELS[chain as keyof typeof CHAIN_LABELS]?.name ?? chain;

/**
 * The gas coin's balance, exact to the wei from the API ("1.234567891234567891"), shown to six
 * decimals ("1.234567 ETH") with the exact value in the title and a copy button; unknown as
 * "unavailable".
 */
function Native({ balance, symbol, testId }: { balance: string | null; symbol: string; testId: string }) {
  if (balance === null)
    return (
      <p className="big" data-testid={testId}>
        {symbol} unavailable
      </p>
    );
  const { shown, exact } = formatNative(balance, symbol);
  return (
    <>
      <p className="big" data-testid={testId} title={exact}>
        {shown}
      </p>
      <details className="exact">
        <summary>Exact balance</summary>
        <Ident value={balance} testId={`${testId}-exact`} /> {symbol}
      </details>
    </>
  );
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
              <Native
                balance={w.hot_wallet.native_balance}
                symbol={w.native_symbol}
                testId={`evm-wallet-${w.chain}-native`}
              />
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
