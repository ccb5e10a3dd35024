import { useState } from "react";
import { api } from "./api.js";
import { formatTime, trimAmount } from "./format.js";
import { useCan } from "./me.js";
import type { CreatedRefund, Payout } from "./payouts-api.js";
import { StatusBadge } from "./PayoutsPage.js";
import { Link } from "./router.js";
import { ClaimLink, useRefundForm } from "./refund-form.js";
import { useApi } from "./useApi.js";

/**
 * The order page's refunds (DESIGN.md 14): every refund of the order with its state, and the
 * Refund form (the admin twin of POST /payments/:id/refunds). Without an address the reply's
 * claim_url is shown once: the payer enters their address there.
 */
export function RefundsPanel({ orderId, received }: { orderId: string; received: string }) {
  const can = useCan();
  const [round, setRound] = useState(0);
  const refunds = useApi(
    () =>
      api
        .get<{ data: Payout[] }>(`/payouts?kind=refund&limit=100&order_id=${encodeURIComponent(orderId)}`)
        .then((r) => r.data),
    `${orderId}-${round}`,
  );
  return (
    <section className="panel wide" data-testid="refunds-panel" aria-labelledby="refunds-title">
      <h2 id="refunds-title">Refunds</h2>
      {refunds.state === "loading" && <p>Loading…</p>}
      {refunds.state === "error" && <p className="error">{refunds.message}</p>}
      {refunds.state === "ok" &&
        (refunds.data.length === 0 ? (
          <p className="muted" data-testid="refunds-empty">
            No refunds.
          </p>
        ) : (
          <table data-testid="refunds">
            <thead>
              <tr>
                <th>Created</th>
                <th className="num">Amount</th>
                <th>Status</th>
                <th>To</th>
                <th>Tx hash</th>
                <th>Reason</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {refunds.data.map((refund) => (
                <tr key={refund.id} data-testid={`refund-${refund.id}`}>
                  <td>{formatTime(refund.created_at)}</td>
                  <td className="num">{trimAmount(refund.amount)} USDT</td>
                  <td>
                    <StatusBadge status={refund.status} />
                  </td>
                  <td className="mono">{refund.address ?? "waiting for the payer"}</td>
                  <td className="mono">{refund.tx_hash ?? "—"}</td>
                  <td>{refund.reason ?? ""}</td>
                  <td>
                    <Link to={`/admin/payouts/${refund.id}`}>Details</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      {can("refunds.create") && (
        <RefundForm orderId={orderId} received={received} onCreated={() => setRound((n) => n + 1)} />
      )}
    </section>
  );
}

function RefundForm({
  orderId,
  received,
  onCreated,
}: {
  orderId: string;
  received: string;
  onCreated: () => void;
}) {
  const form = useRefundForm({
    create: (fields) =>
      api.post<CreatedRefund>(`/orders/${orderId}/refunds`, {
        amount: fields.amount,
        ...(fields.address ? { address: fields.address } : {}),
        ...(fields.reason ? { reason: fields.reason } : {}),
      }),
    onCreated,
  });
  const { amount, setAmount, address, setAddress, reason, setReason, busy, error, created } = form;
  return (
    <>
      <form className="inline-form" onSubmit={(event) => void form.submit(event)} data-testid="refund-form">
        <h2>Refund</h2>
        <label>
          Amount (USDT, at most {trimAmount(received)} received less live refunds)
          <input
            value={amount}
            onChange={(event) => setAmount(event.target.value)}
            inputMode="decimal"
            placeholder="5"
            data-testid="refund-amount"
            required
          />
        </label>
        <label>
          Payer&apos;s TRON address (optional: empty gives a claim link)
          <input
            value={address}
            onChange={(event) => setAddress(event.target.value)}
            className="mono"
            maxLength={64}
            autoComplete="off"
            spellCheck={false}
            data-testid="refund-address"
          />
        </label>
        <label>
          Reason
          <input
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            maxLength={500}
            data-testid="refund-reason"
          />
        </label>
        <button type="submit" disabled={busy} data-testid="create-refund">
          Create refund
        </button>
      </form>
      {error && (
        <p className="error" role="alert" data-testid="refund-error">
          {error}
        </p>
      )}
      {created && (
        <div className="notice-ok" role="status" data-testid="refund-created">
          <p>
            Refund of {trimAmount(created.amount)} USDT created: {created.status}
            {created.status === "pending_approval"
              ? " (another operator approves it on the Payouts page)"
              : ""}
            .
          </p>
          {created.claim_url && <ClaimLink url={created.claim_url} testId="refund-claim-url" />}
        </div>
      )}
    </>
  );
}
