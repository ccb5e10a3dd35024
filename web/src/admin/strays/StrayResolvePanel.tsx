import { useState } from "react";
import type { StrayTransferView } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime } from "../format.js";
import { Link, navigate } from "../router.js";
import { Field } from "../ui/Field.js";
import { OutcomeLine, useOutcome } from "../ui/Outcome.js";

/** Attach a stray to the order it was meant for, or dismiss it; both need a reason. Once resolved: how and by whom. */
export function StrayResolvePanel({ stray, onDone }: { stray: StrayTransferView; onDone: () => void }) {
  const [reason, setReason] = useState("");
  const [orderId, setOrderId] = useState("");
  const { outcome, report } = useOutcome();
  const open = stray.resolution === null && stray.status === "confirmed";
  const dismiss = () =>
    report(async () => {
      await api.post(`/stray-transfers/${stray.id}/dismiss`, { reason });
      onDone();
      return "Dismissed.";
    }, "Dismiss");
  const attach = () =>
    report(async () => {
      await api.post(`/orders/${encodeURIComponent(orderId)}/attach-transfer`, {
        tx_hash: stray.tx_hash,
        log_index: stray.log_index,
        reason,
      });
      navigate(`/admin/orders/${orderId}`);
      return null;
    }, "Attach");
  return (
    <section className="panel wide">
      <h2>Resolve</h2>
      {stray.resolution !== null ? (
        <p data-testid="stray-resolved">
          {stray.resolution} by {stray.resolved_by?.label ?? "—"} {formatTime(stray.resolved_at)}:{" "}
          {stray.resolution_reason}
          {stray.order_id && (
            <>
              {" "}
              (<Link to={`/admin/orders/${stray.order_id}`}>order</Link>)
            </>
          )}
        </p>
      ) : (
        <div className="stack">
          <Field label="Reason" value={reason} onChange={setReason} testId="stray-reason" />
          <Field
            label="Order id to attach it to"
            value={orderId}
            onChange={(value) => setOrderId(value.trim())}
            className="mono"
            testId="stray-order-id"
          />
          <p className="actions">
            <button
              type="button"
              disabled={!open || orderId === "" || reason.trim() === ""}
              data-testid="stray-attach"
              onClick={() => void attach()}
            >
              Attach to order
            </button>
            <button
              type="button"
              disabled={!open || reason.trim() === ""}
              data-testid="stray-dismiss"
              onClick={() => void dismiss()}
            >
              Dismiss
            </button>
          </p>
        </div>
      )}
      <OutcomeLine outcome={outcome} testId="stray-message" />
    </section>
  );
}
