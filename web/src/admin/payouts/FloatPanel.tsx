import type { PayoutFloat } from "../../api-types.js";
import { useQrCode } from "../../qr.js";
import { api } from "../api.js";
import { formatUsdt } from "../format.js";
import { useApi } from "../useApi.js";

/** The hot wallet's float: balances, what approved payouts need, the low warning, top-up QR. */
export function FloatPanel({ round }: { round: number }) {
  const float = useApi(() => api.get<PayoutFloat>("/payouts/float"), `float-${round}`);
  const qr = useQrCode(float.state === "ok" ? float.data.address : null);
  if (float.state === "loading") return <section className="panel">Loading the float…</section>;
  if (float.state === "error") return <p className="error">{float.message}</p>;
  const f = float.data;
  return (
    <section className="panel float" data-testid="float" aria-labelledby="float-title">
      <h2 id="float-title">Hot wallet float</h2>
      {f.is_low && (
        <p className="error" role="alert" data-testid="float-low">
          The float is too small: {formatUsdt(f.shortfall)} short for {f.approved.count} approved{" "}
          {f.approved.count === 1 ? "payout" : "payouts"}
          {f.waiting_for_float > 0 ? ` (${f.waiting_for_float} waiting)` : ""}. Top up the hot wallet.
        </p>
      )}
      {f.balance_error && <p className="error">Balances not current: {f.balance_error}</p>}
      <div className="float-body">
        <dl data-testid="float-figures">
          <dt>USDT</dt>
          <dd data-testid="float-usdt">{f.usdt_balance === null ? "—" : formatUsdt(f.usdt_balance)}</dd>
          <dt>TRX</dt>
          <dd data-testid="float-trx">{f.trx_balance === null ? "—" : formatUsdt(f.trx_balance, "TRX")}</dd>
          <dt>Approved, to send</dt>
          <dd data-testid="float-needed">
            {formatUsdt(f.approved.amount)} ({f.approved.count})
          </dd>
          <dt>In flight</dt>
          <dd>
            {formatUsdt(f.in_flight.amount)} ({f.in_flight.count})
          </dd>
          <dt>Pending approval</dt>
          <dd>
            {formatUsdt(f.pending_approval.amount)} ({f.pending_approval.count})
          </dd>
        </dl>
        {f.address && (
          <div className="float-topup">
            <span className="field-label">Top-up address (USDT TRC20 and TRX)</span>
            <code className="mono block" data-testid="float-address">
              {f.address}
            </code>
            {qr && (
              <img
                src={qr}
                alt="QR code of the hot wallet's address"
                data-testid="float-qr"
                width={140}
                height={140}
              />
            )}
          </div>
        )}
      </div>
    </section>
  );
}
