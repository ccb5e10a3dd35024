import { api, type WalletStatus } from "./api.js";
import { trimAmount } from "./format.js";
import { useApi } from "./useApi.js";

export function WalletPage() {
  const wallet = useApi(() => api.get<WalletStatus>("/wallet"), "wallet");
  if (wallet.state === "loading") return <p>Loading…</p>;
  if (wallet.state === "error") return <p className="error">{wallet.message}</p>;
  const {
    hot_wallet: hot,
    cold_wallet: cold,
    address_pool: pool,
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
          The hot wallet holds {trimAmount(hot.trx_balance)} TRX, under the{" "}
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
                {trimAmount(hot.trx_balance)} TRX
              </p>
              <p className="mono">{hot.address}</p>
              {hot.balance_error && <p className="error">Balance not current: {hot.balance_error}</p>}
            </>
          ) : (
            <p className="muted">Not configured.</p>
          )}
        </section>
        <section className="panel">
          <h2>Cold wallet</h2>
          {cold ? <p className="mono">{cold.address}</p> : <p className="muted">Not configured.</p>}
        </section>
        <section className="panel">
          <h2>Address pool</h2>
          <dl>
            <dt>Free</dt>
            <dd>{pool.free}</dd>
            <dt>Allocated</dt>
            <dd>{pool.allocated}</dd>
            <dt>Total</dt>
            <dd>{pool.total}</dd>
          </dl>
        </section>
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
              <dd>{trimAmount(stake.staked_trx)} TRX</dd>
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
      <SweepCosts costs={costs} />
      <section className="panel wide">
        <h2>System</h2>
        <dl className="fields" data-testid="system">
          {Object.entries(system).map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd>{value === null ? "—" : String(value)}</dd>
            </div>
          ))}
        </dl>
      </section>
    </>
  );
}

/** TRX burnt per sweep (from the transaction infos), by mode: the last 7 UTC days and all time. */
function SweepCosts({ costs }: { costs: WalletStatus["sweep_costs"] }) {
  const modes = ["burn", "delegate"] as const;
  return (
    <section className="panel wide">
      <h2>Sweep cost (TRX burnt)</h2>
      <table data-testid="sweep-costs">
        <thead>
          <tr>
            <th>Mode</th>
            <th>Sweeps, 7 days</th>
            <th>Average, 7 days</th>
            <th>Total, 7 days</th>
            <th>Sweeps, all time</th>
            <th>Average, all time</th>
            <th>Total, all time</th>
          </tr>
        </thead>
        <tbody>
          {modes.map((mode) => {
            const { week, total } = costs[mode];
            return (
              <tr key={mode} data-testid={`sweep-cost-${mode}`}>
                <td>{mode}</td>
                <td>{week.count}</td>
                <td>{trimAmount(week.average_trx)}</td>
                <td>{trimAmount(week.total_trx)}</td>
                <td>{total.count}</td>
                <td>{trimAmount(total.average_trx)}</td>
                <td>{trimAmount(total.total_trx)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
