import { useEffect, useState } from "react";
import { PageUnavailable } from "../PageUnavailable.js";
import { useQrCode } from "../qr.js";
import type { Fetched } from "../public-api.js";
import { countdown, trimAmount } from "./amounts.js";
import { fetchStatus, type CheckoutStatus } from "./api.js";
import { CopyField } from "./CopyField.js";
import { POLL_MS, viewOf } from "./view.js";

type State = { kind: "loading" } | Fetched<CheckoutStatus>;

/** Polls the public status until the outcome is final for the payer; keeps the last good answer on errors. */
function useCheckoutStatus(orderId: string): { state: State; offline: boolean } {
  const [state, setState] = useState<State>({ kind: "loading" });
  const [offline, setOffline] = useState(false);
  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      const next = await fetchStatus(orderId, abort.signal);
      if (abort.signal.aborted) return;
      let delay: number | null = POLL_MS;
      if (next.kind === "error") {
        setOffline(true);
        setState((previous) => (previous.kind === "loading" ? next : previous));
      } else {
        setOffline(false);
        setState(next);
        delay = next.kind === "ok" ? viewOf(next.data).pollMs : null;
      }
      if (delay !== null) timer = setTimeout(() => void poll(), delay);
    };
    void poll();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [orderId]);
  return { state, offline };
}

function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

/** The hosted checkout page /checkout/:id: what to send where, then the payment's progress. */
export function CheckoutPage({ orderId }: { orderId: string }) {
  const { state, offline } = useCheckoutStatus(orderId);
  const status = state.kind === "ok" ? state.data : null;
  const view = status ? viewOf(status) : null;
  const now = useNow(view?.showCountdown === true);
  const qr = useQrCode(view?.amountToSend != null && status ? status.payment_uri : null);

  useEffect(() => {
    if (status)
      document.title = `Pay ${trimAmount(status.amount_expected)} ${status.currency} · ${status.merchant_name}`;
  }, [status]);

  if (!status || !view) return <PageUnavailable kind={state.kind} noun="Payment" issuer="the shop" />;

  const expired = view.showCountdown && Date.parse(status.expires_at) <= now;
  return (
    <main className={`card phase-${view.phase}`} data-phase={view.phase}>
      <header>
        <p className="merchant" data-testid="merchant">
          {status.merchant_name}
        </p>
        <p className="amount" data-testid="amount">
          {trimAmount(status.amount_expected)} <span className="currency">{status.currency}</span>
        </p>
        <p className="muted" data-testid="chain">
          {status.currency} ({status.token_standard}) on {status.chain_name}{" "}
          {status.network === "mainnet" ? "" : `(${status.network})`}
        </p>
      </header>

      <section className="status" role="status" aria-live="polite">
        <h1 data-testid="headline">{view.headline}</h1>
        {view.detail && <p data-testid="detail">{view.detail}</p>}
        {view.phase === "confirming" && (
          <progress
            max={status.confirmations_required}
            value={Math.min(status.confirmations, status.confirmations_required)}
          />
        )}
        {offline && <p className="muted">Connection lost, retrying…</p>}
      </section>

      {view.amountToSend !== null && (
        <section className="pay">
          <div className="qr">
            {qr && (
              <img
                src={qr}
                alt={
                  status.payment_uri === status.address
                    ? "QR code of the deposit address"
                    : "QR code of the payment request"
                }
                data-testid="qr"
                width={200}
                height={200}
              />
            )}
          </div>
          <CopyField label="Amount" value={view.amountToSend} testId="send-amount" />
          <CopyField label="Address" value={status.address} testId="address" mono />
          <p className="warning" data-testid="warning">
            Send only {status.currency} on the {status.chain_name} network ({status.token_standard}). Other
            tokens or networks cannot be recovered.
          </p>
        </section>
      )}

      {view.showCountdown && (
        <p className="countdown" data-testid="countdown">
          {expired ? (
            "Expiring…"
          ) : (
            <>
              Expires in <time dateTime={status.expires_at}>{countdown(status.expires_at, now)}</time>
            </>
          )}
        </p>
      )}

      {status.tx_hash && status.explorer_url && (
        <p>
          <a href={status.explorer_url} target="_blank" rel="noopener noreferrer" data-testid="explorer">
            View the transaction
          </a>
        </p>
      )}
    </main>
  );
}
