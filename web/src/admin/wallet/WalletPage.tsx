import type { WalletStatus } from "../../api-types.js";
import { api } from "../api.js";
import { formatUsdt } from "../format.js";
import { FieldList } from "../ui/FieldList.js";
import { Ident } from "../ui/Ident.js";
import { useApi } from "../useApi.js";
import { AddressPoolPanel } from "./AddressPoolPanel.js";
import { EvmWallets } from "./EvmWallets.js";
import { SweepCosts } from "./SweepCosts.js";

/** The wallets (TRON's, then each EVM chain's), the address pools, the sweep queue and costs, the stake, and the deployment's settings. */
export function WalletPage() {
  const wallet = useApi(() => api.get<WalletStatus>("/wallet"), "wallet");
  if (wallet.state === "loading") return <p>Loading…</p>;
  if (wallet.state === "error") return <p className="error">{wallet.message}</p>;
  const {
    hot_wallet: hot,
    cold_wallet: cold,
    address_pool: pool,
    address_pools: pools,
    evm_wallets: evmWallets,
    sweep_queue: queue,
    stake,
    sweep_costs: costs,
    system,
  } = wallet.data;
  return (
    <>
      <h1>Wallet</h1>
      {hot?.is_low_balance && (
        <p className="error" role="alert" data-testid="low-balance">
          The hot wallet holds {formatUsdt(hot.trx_balance, "TRX")}, under the{" "}
          {String(system.hot_wallet_alert_trx)} TRX alert: sweeps will fail once it cannot pay their fees. Top
          it up.
        </p>
      )}
      <div className="grid">
        <section className="panel">
          <h2>Hot wallet (fees)</h2>
          {hot ? (
            <>
              <p className="big" data-testid="hot-balance">
                {formatUsdt(hot.trx_balance, "TRX")}
              </p>
              <p data-testid="hot-usdt">
                {hot.usdt_balance === null
                  ? "USDT unavailable"
                  : `${formatUsdt(hot.usdt_balance)} for payouts`}
              </p>
              <p>
                <Ident value={hot.address} />
              </p>
              {hot.balance_error && <p className="error">Balance not current: {hot.balance_error}</p>}
            </>
          ) : (
            <p className="muted">Not configured.</p>
          )}
        </section>
        <section className="panel">
          <h2>Cold wallet</h2>
          {cold ? (
            <>
              <p className="big" data-testid="cold-usdt">
                {cold.usdt_balance === null ? "Balance unavailable" : formatUsdt(cold.usdt_balance)}
              </p>
              <p>
                <Ident value={cold.address} />
              </p>
              {cold.balance_error && <p className="error">Balance unavailable: {cold.balance_error}</p>}
            </>
          ) : (
            <p className="muted">
              Not configured: set <code data-verbatim>COLD_WALLET_ADDRESS</code> to sweep payments to it.
            </p>
          )}
        </section>
        <AddressPoolPanel pool={pool} pools={pools} />
        <section className="panel">
          <h2>Sweep queue</h2>
          <dl data-testid="sweep-queue">
            <dt>Waiting</dt>
            <dd>{queue.waiting}</dd>
            <dt>Active</dt>
            <dd>{queue.active}</dd>
            <dt>Failed</dt>
            <dd>{queue.failed}</dd>
          </dl>
        </section>
        {stake && (
          <section className="panel">
            <h2>Stake (delegate mode)</h2>
            <dl data-testid="stake">
              <dt>Staked</dt>
              <dd>{formatUsdt(stake.staked_trx, "TRX")}</dd>
              <dt>Energy</dt>
              <dd>{stake.energy_limit.toLocaleString("en-US")}</dd>
              <dt>Available</dt>
              <dd>{stake.energy_available.toLocaleString("en-US")}</dd>
              <dt>In use</dt>
              <dd>{stake.energy_in_use.toLocaleString("en-US")}</dd>
              <dt>Delegations open</dt>
              <dd>{stake.delegations_open}</dd>
            </dl>
            {stake.stake_error && <p className="error">Stake not current: {stake.stake_error}</p>}
          </section>
        )}
      </div>
      <EvmWallets wallets={evmWallets} />
      <SweepCosts costs={costs} />
      <section className="panel wide">
        <h2>System</h2>
        <FieldList fields={system} testId="system" />
      </section>
    </>
  );
}
