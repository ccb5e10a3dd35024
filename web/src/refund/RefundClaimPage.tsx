import { useEffect, useRef, useState } from "react";
import { trimAmount } from "../checkout/amounts.js";
import { PageUnavailable } from "../PageUnavailable.js";
import type { Fetched } from "../public-api.js";
import { AddressForm } from "./AddressForm.js";
import { fetchClaim, type RefundClaimView } from "./api.js";
import { Steps } from "./Steps.js";
import { addressLabel, expiryText, FINAL, FIRST_POLL_MS, nextDelay, viewOf } from "./view.js";

type State = { kind: "loading" } | Fetched<RefundClaimView>;

/**
 * Reads the refund, then polls it with backoff until it ends; `set` lets the form replace the
 * state with the reply of its POST (and restarts the quick polling).
 */
function useRefundClaim(token: string) {
  const [state, setState] = useState<State>({ kind: "loading" });
  const [offline, setOffline] = useState(false);
  const [round, setRound] = useState(0);
  const last = useRef<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let delay = FIRST_POLL_MS;
    const poll = async () => {
      const next = await fetchClaim(token, abort.signal);
      if (abort.signal.aborted) return;
      if (next.kind === "error") {
        setOffline(true);
        setState((previous) => (previous.kind === "loading" ? next : previous));
        delay = nextDelay(delay, false);
      } else {
        setOffline(false);
        setState(next);
        if (next.kind === "not_found") return;
        const seen = `${next.data.status}|${String(next.data.claimable)}`;
        delay = nextDelay(delay, seen !== last.current);
        last.current = seen;
        if (FINAL.has(next.data.status)) return;
        // Nothing moves until the payer types an address (or the link expires): poll slowly.
        if (next.data.claimable) delay = Math.max(delay, 15_000);
      }
      timer = setTimeout(() => void poll(), delay);
    };
    void poll();
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [token, round]);
  const replace = (claim: RefundClaimView) => {
    setState({ kind: "ok", data: claim });
    setRound((n) => n + 1);
  };
  return { state, offline, replace };
}

/** The payer's refund page /refund/:token: give an address, then follow the refund until it ends. */
export function RefundClaimPage({ token }: { token: string }) {
  const { state, offline, replace } = useRefundClaim(token);
  const claim = state.kind === "ok" ? state.data : null;

  useEffect(() => {
    if (claim)
      document.title = `Refund of ${trimAmount(claim.amount)} ${claim.currency}${claim.merchant_name ? ` · ${claim.merchant_name}` : ""}`;
  }, [claim]);

  if (!claim) return <PageUnavailable kind={state.kind} noun="Refund" issuer="the merchant" />;
  const now = Date.now();
  const view = viewOf(claim, now);
  const expiry = expiryText(claim, now);
  return (
    <main className={`card refund tone-${view.tone}`} data-status={claim.status} data-testid="refund-page">
      <header>
        {claim.merchant_name && (
          <p className="merchant" data-testid="merchant">
            {claim.merchant_name}
          </p>
        )}
        <p className="muted">Refund{claim.merchant_order ? ` for order ${claim.merchant_order}` : ""}</p>
        <p className="amount" data-testid="amount">
          {trimAmount(claim.amount)} <span className="currency">{claim.currency}</span>
        </p>
        <p className="muted">
          USDT (TRC20) on TRON {claim.network === "mainnet" ? "" : `(${claim.network})`}
        </p>
      </header>

      <section className="status" role="status" aria-live="polite">
        <h1 data-testid="headline">{view.headline}</h1>
        {view.detail && <p data-testid="detail">{view.detail}</p>}
        {offline && <p className="muted">Connection lost, retrying…</p>}
      </section>

      {expiry && (
        <p className="muted" data-testid="claim-expiry">
          {expiry}
        </p>
      )}
      {claim.claimable && <AddressForm token={token} claim={claim} onClaimed={replace} />}

      <Steps status={claim.status} />

      {claim.address && (
        <div className="field">
          <span className="field-label" data-testid="claim-destination-label">
            {addressLabel(claim.status)}
          </span>
          <code className="field-value mono" data-testid="claim-destination">
            {claim.address}
          </code>
        </div>
      )}
      {claim.tx_hash && (
        <div className="field">
          <span className="field-label">Transaction</span>
          <code className="field-value mono" data-testid="claim-tx-hash">
            {claim.tx_hash}
          </code>
          {claim.tx_explorer_url && (
            <p>
              <a
                href={claim.tx_explorer_url}
                target="_blank"
                rel="noopener noreferrer"
                data-testid="explorer"
              >
                View the transaction
              </a>
            </p>
          )}
        </div>
      )}
    </main>
  );
}
