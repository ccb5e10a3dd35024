import { useState, type FormEvent } from "react";
import { submitAddress, type RefundClaimView } from "./api.js";
import { addressFieldLabel, CHAIN_TEXT } from "./chains.js";
import { refusalText } from "./view.js";

/** The payer's address for the refund: checked as typed, refused in the payer's words. */
export function AddressForm({
  token,
  claim,
  onClaimed,
}: {
  token: string;
  /** The refund as last read: its chain and currency name the address asked for. */
  claim: Pick<RefundClaimView, "chain" | "currency">;
  onClaimed: (claim: RefundClaimView) => void;
}) {
  const text = CHAIN_TEXT[claim.chain];
  const [address, setAddress] = useState("");
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const trimmed = address.trim();
  const hint = touched && trimmed !== "" && !text.looksLike(trimmed) ? text.hint : null;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    setError(null);
    setBusy(true);
    const result = await submitAddress(token, trimmed);
    setBusy(false);
    if (result.kind === "ok") onClaimed(result.claim);
    else setError(refusalText(result.code, result.message, claim.chain));
  };
  return (
    <form className="stack claim-form" onSubmit={(event) => void submit(event)} noValidate>
      <label htmlFor="refund-address">{addressFieldLabel(claim)}</label>
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
        placeholder={text.placeholder}
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
