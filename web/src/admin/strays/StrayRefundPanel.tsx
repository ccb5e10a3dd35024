import type { CreatedRefund, StrayTransferView } from "../../api-types.js";
import { api } from "../api.js";
import { trimAmount } from "../format.js";
import { useCan } from "../me.js";
import { RefundForm } from "../refunds/RefundForm.js";
import { Link } from "../router.js";

/**
 * Refund a stray transfer (DESIGN.md 13, 14): POST /admin/stray-transfers/:id/refunds. The amount
 * defaults to what is left of the stray; the sender's address is never used unless the operator
 * puts it in; without an address the claim link is shown once. The refund then waits for a second
 * operator's approval on the Payouts page like any other.
 */
export function StrayRefundPanel({ stray, onDone }: { stray: StrayTransferView; onDone: () => void }) {
  const can = useCan();
  const refundable =
    stray.status === "confirmed" && (stray.resolution === null || stray.resolution === "refunded");
  if (!can("refunds.create") || !refundable) return null;
  return (
    <section className="panel wide" data-testid="stray-refund-panel" aria-labelledby="stray-refund-title">
      <h2 id="stray-refund-title">Refund</h2>
      <RefundForm
        testIdPrefix="stray-refund"
        amountLabel={`Amount (USDT; empty: all that is left of ${trimAmount(stray.amount)})`}
        addressLabel="TRON address (optional: empty gives a claim link)"
        sender={stray.from_address}
        submit={{ label: "Refund", testId: "stray-refund" }}
        validate={(fields) => (fields.reason === "" ? "Give a reason: it is kept in the audit log." : null)}
        create={(fields) =>
          api.post<CreatedRefund>(`/stray-transfers/${stray.id}/refunds`, {
            reason: fields.reason,
            ...(fields.amount ? { amount: fields.amount } : {}),
            ...(fields.address ? { address: fields.address } : {}),
          })
        }
        onCreated={onDone}
        createdNote={(created) => (
          <>
            . <Link to={`/admin/payouts/${created.id}`}>Open it</Link>
          </>
        )}
      />
    </section>
  );
}
