import { useEffect, useRef, useState, type FormEvent } from "react";
import { trimAmount } from "../checkout/amounts.js";
import { fetchClaim, submitAddress, type Fetched, type RefundClaimView } from "./api.js";
import { FINAL, FIRST_POLL_MS, looksLikeTronAddress, nextDelay, refusalText, STEPS, viewOf } from "./view.js";

type State = { kind: "loading" } | Fetched;

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
        const seen = `${next.claim.status}|${String(next.claim.claimable)}`;
        delay = nextDelay(delay, seen !== last.current);
        last.current = seen;
        if (FINAL.has(next.claim.status)) return;
        // Nothing moves until the payer types an address (or the link expires): poll slowly.
        if (next.claim.claimable) delay = Math.max(delay, 15_000);
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
    setState({ kind: "ok", claim });
    setRound((n) => n + 1);
  };
  return { state, offline, replace };
}

function AddressForm({ token, onClaimed }: { token: string; onClaimed: (claim: RefundClaimView) => void }) {
  const [address, setAddress] = useState("");
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const trimmed = address.trim();
  const hint =
    touched && trimmed !== "" && !looksLikeTronAddress(trimmed)
      ? "A TRON address starts with T and has 34 letters and digits (no 0, O, I or l)."
      : null;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    setError(null);
    setBusy(true);
    const result = await submitAddress(token, trimmed);
    setBusy(false);
    if (result.kind === "ok") onClaimed(result.claim);
    else setError(refusalText(result.code, result.message));
  };
  return (
    <form className="stack claim-form" onSubmit={(event) => void submit(event)} noValidate>
      <label htmlFor="refund-address">Your TRON address (USDT, TRC20)</label>
      <input
        id="refund-address"
        className="mono"
        value={address}
        onChange={(event) => {
          setAddress(event.target.value);
          setError(null);
        }}
        onBlur={() => setTouched(true)}
        autoComplete="off"
        spellCheck={false}
        placeholder="T…"
        maxLength={64}
        aria-invalid={hint !== null || error !== null}
        aria-describedby="refund-address-help"
        data-testid="claim-address"
        required
      />
      <p id="refund-address-help" className={hint ? "warning" : "muted"} data-testid="claim-hint">
        {hint ?? "Send it to a wallet you control: exchanges may not credit refunds."}
      </p>
      <button type="submit" disabled={busy || trimmed === ""} data-testid="claim-submit">
        {busy ? "Sending…" : "Send me the refund"}
      </button>
      {error && (
        <p className="error" role="alert" data-testid="claim-error">
          {error}
        </p>
      )}
    </form>
  );
}

function Steps({ status }: { status: RefundClaimView["status"] }) {
  const reached = STEPS.findIndex((step) => step.status === status);
  if (reached < 0) return null;
  return (
    <ol className="steps" aria-label="Refund progress" data-testid="claim-steps">
      {STEPS.map((step, index) => (
        <li
          key={step.status}
          className={index < reached ? "done" : index === reached ? "current" : undefined}
          aria-current={index === reached ? "step" : undefined}
        >
          {step.label}
        </li>
      ))}
    </ol>
  );
}

export function RefundClaimPage({ token }: { token: string }) {
  const { state, offline, replace } = useRefundClaim(token);
  const claim = state.kind === "ok" ? state.claim : null;

  useEffect(() => {
    if (claim)
      document.title = `Refund of ${trimAmount(claim.amount)} ${claim.currency}${claim.merchant_name ? ` · ${claim.merchant_name}` : ""}`;
  }, [claim]);

  if (state.kind === "loading") {
    return (
      <main className="card" aria-busy="true">
        <p className="muted">Loading refund…</p>
      </main>
    );
  }
  if (state.kind === "not_found") {
    return (
      <main className="card">
        <h1 data-testid="headline">Refund not found</h1>
        <p className="muted">Check the link you were given, or ask the merchant for a new one.</p>
      </main>
    );
  }
  if (!claim) {
    return (
      <main className="card">
        <h1 data-testid="headline">Cannot reach the payment service</h1>
        <p className="muted">Retrying…</p>
      </main>
    );
  }
  const view = viewOf(claim, Date.now());
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

      {claim.claimable && <AddressForm token={token} onClaimed={replace} />}

      <Steps status={claim.status} />

      {claim.address && (
        <div className="field">
          <span className="field-label">Sent to</span>
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
