import { useState } from "react";
import type { CreatedRefund, PayoutList } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime, formatUsdt, trimAmount } from "../format.js";
import { useCan } from "../me.js";
import { PayoutStatusBadge } from "../payouts/PayoutStatusBadge.js";
import { RefundForm } from "../refunds/RefundForm.js";
import { Link } from "../router.js";
import { useApi } from "../useApi.js";

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
        .get<PayoutList>(`/payouts?kind=refund&limit=100&order_id=${encodeURIComponent(orderId)}`)
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
          <div className="table-scroll" tabIndex={0}>
            <table data-testid="refunds">
              <thead>
                <tr>
                  <th>Created</th>
                  <th className="num">Amount</th>
                  <th>Status</th>
                  <th>To</th>
                  <th>Tx hash</th>
                  <th>Reason</th>
                  <th>
                    <span className="offscreen">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {refunds.data.map((refund) => (
                  <tr key={refund.id} data-testid={`refund-${refund.id}`}>
                    <td>{formatTime(refund.created_at)}</td>
                    <td className="num">{formatUsdt(refund.amount)}</td>
                    <td>
                      <PayoutStatusBadge status={refund.status} />
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
          </div>
        ))}
      {can("refunds.create") && (
        <RefundForm
          testIdPrefix="refund"
          heading={<h2>Refund</h2>}
          amountLabel={`Amount (USDT, at most ${trimAmount(received)} received less live refunds)`}
          amountRequired
          addressLabel="Payer's TRON address (optional: empty gives a claim link)"
          submit={{ label: "Create refund", testId: "create-refund" }}
          create={(fields) =>
            api.post<CreatedRefund>(`/orders/${orderId}/refunds`, {
              amount: fields.amount,
              ...(fields.address ? { address: fields.address } : {}),
              ...(fields.reason ? { reason: fields.reason } : {}),
            })
          }
          onCreated={() => setRound((n) => n + 1)}
          createdNote={(created) =>
            `${created.status === "pending_approval" ? " (another operator approves it on the Payouts page)" : ""}.`
          }
        />
      )}
    </section>
  );
}
