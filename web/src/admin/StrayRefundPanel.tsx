import { api, type StrayTransferView } from "./api.js";
import { trimAmount } from "./format.js";
import { useCan } from "./me.js";
import type { CreatedRefund } from "./payouts-api.js";
import { ClaimLink, useRefundForm } from "./refund-form.js";
import { Link } from "./router.js";

/**
 * Refund a stray transfer (DESIGN.md 13, 14): POST /admin/stray-transfers/:id/refunds. The amount
 * defaults to what is left of the stray; the sender's address is never used unless the operator
 * puts it in; without an address the claim link is shown once. The refund then waits for a second
 * operator's approval on the Payouts page like any other.
 */
export function StrayRefundPanel({ stray, onDone }: { stray: StrayTransferView; onDone: () => void }) {
  const can = useCan();
  const form = useRefundForm({
    validate: (fields) => (fields.reason === "" ? "Give a reason: it is kept in the audit log." : null),
    create: (fields) =>
      api.post<CreatedRefund>(`/stray-transfers/${stray.id}/refunds`, {
        reason: fields.reason,
        ...(fields.amount ? { amount: fields.amount } : {}),
        ...(fields.address ? { address: fields.address } : {}),
      }),
    onCreated: onDone,
  });
  const { amount, setAmount, address, setAddress, reason, setReason, busy, error, created } = form;
  const refundable =
    stray.status === "confirmed" && (stray.resolution === null || stray.resolution === "refunded");
  if (!can("refunds.create") || !refundable) return null;
  return (
    <section className="panel wide" data-testid="stray-refund-panel" aria-labelledby="stray-refund-title">
      <h2 id="stray-refund-title">Refund</h2>
      <form className="inline-form" onSubmit={(event) => void form.submit(event)}>
        <label>
          Amount (USDT; empty: all that is left of {trimAmount(stray.amount)})
          <input
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
            inputMode="decimal"
            data-testid="stray-refund-amount"
          />
        </label>
        <label>
          TRON address (optional: empty gives a claim link)
          <input
            value={address}
            onChange={(event) => setAddress(event.target.value)}
            className="mono"
            maxLength={64}
            autoComplete="off"
            spellCheck={false}
            data-testid="stray-refund-address"
          />
        </label>
        <button
          type="button"
          onClick={() => setAddress(stray.from_address)}
          title="Often an exchange's hot wallet: use it only when you know it is the payer's own"
          data-testid="stray-refund-use-sender"
        >
          Use the sender&apos;s address
        </button>
        <label>
          Reason
          <input
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            maxLength={500}
            data-testid="stray-refund-reason"
          />
        </label>
        <button type="submit" disabled={busy} data-testid="stray-refund">
          Refund
        </button>
      </form>
      {error && (
        <p className="error" role="alert" data-testid="stray-refund-error">
          {error}
        </p>
      )}
      {created && (
        <div className="notice-ok" role="status" data-testid="stray-refund-created">
          <p>
            Refund of {trimAmount(created.amount)} USDT created: {created.status}.{" "}
            <Link to={`/admin/payouts/${created.id}`}>Open it</Link>
          </p>
          {created.claim_url && <ClaimLink url={created.claim_url} testId="stray-refund-claim-url" />}
        </div>
      )}
    </section>
  );
}
