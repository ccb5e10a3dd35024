import { api, type WalletStatus } from "./api.js";
import { trimAmount } from "./format.js";
import { useApi } from "./useApi.js";

export function WalletPage() {
  const wallet = useApi(() => api.get<WalletStatus>("/wallet"), "wallet");
  if (wallet.state === "loading") return <p>Loading…</p>;
  if (wallet.state === "error") return <p className="error">{wallet.message}</p>;
  const { hot_wallet: hot, cold_wallet: cold, address_pool: pool, sweep_queue: queue, system } = wallet.data;
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
      </div>
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
