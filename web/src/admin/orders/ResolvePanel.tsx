import { useState } from "react";
import type { OrderDetail } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime, trimAmount } from "../format.js";
import { Field } from "../ui/Field.js";
import { OutcomeLine, useOutcome } from "../ui/Outcome.js";

/**
 * The order page's resolutions (DESIGN.md 13): cancel a pending order, accept an underpaid outcome,
 * attach a stray transfer. Every action needs a reason; the buttons follow the order's `actions`.
 */
export function ResolvePanel({ detail, onDone }: { detail: OrderDetail; onDone: () => void }) {
  const [reason, setReason] = useState("");
  const [txHash, setTxHash] = useState("");
  const { outcome, setOutcome, report } = useOutcome();
  const { order, actions, resolutions } = detail;

  const act = async (label: string, path: string, body: Record<string, unknown>) => {
    if (reason.trim() === "") {
      setOutcome({ ok: false, text: `${label}: give a reason first.` });
      return;
    }
    await report(async () => {
      await api.post(path, { ...body, reason });
      setReason("");
      setTxHash("");
      onDone();
      return `${label}: done.`;
    }, label);
  };

  return (
    <section className="panel wide" data-testid="resolve-panel">
      <h2>Resolve</h2>
      <div className="stack">
        <Field
          label="Reason (kept in the order's events and the audit log)"
          value={reason}
          onChange={setReason}
          testId="resolution-reason"
        />
        <p className="actions">
          <button
            type="button"
            disabled={!actions.cancel}
            data-testid="cancel-order"
            title="Only a pending order can be cancelled"
            onClick={() => void act("Cancel", `/orders/${order.id}/cancel`, {})}
          >
            Cancel order
          </button>
          <button
            type="button"
            disabled={!actions.accept}
            data-testid="accept-order"
            title="Make an underpaid outcome confirmed at the amount received"
            onClick={() => void act("Accept", `/orders/${order.id}/resolve`, { action: "accept" })}
          >
            Accept {trimAmount(order.amount_received)} USDT
          </button>
        </p>
        <Field
          label="Stray transfer to attach (transaction hash)"
          value={txHash}
          onChange={(value) => setTxHash(value.trim())}
          placeholder="64 hex digits"
          className="mono"
          testId="attach-tx-hash"
        />
        <p className="actions">
          <button
            type="button"
            disabled={!actions.attach || txHash === ""}
            data-testid="attach-transfer"
            onClick={() => void act("Attach", `/orders/${order.id}/attach-transfer`, { tx_hash: txHash })}
          >
            Attach stray transfer
          </button>
        </p>
        <OutcomeLine outcome={outcome} testId="resolve-message" />
      </div>
      {resolutions.length > 0 && (
        <table data-testid="resolutions">
          <thead>
            <tr>
              <th>When</th>
              <th>Action</th>
              <th>By</th>
              <th>Reason</th>
              <th>Transfer</th>
            </tr>
          </thead>
          <tbody>
            {resolutions.map((r) => (
              <tr key={r.event_id}>
                <td>{formatTime(r.created_at)}</td>
                <td>{r.action}</td>
                <td>{r.actor ? `${r.actor.kind} ${r.actor.label}` : "—"}</td>
                <td>{r.reason ?? ""}</td>
                <td className="mono">{r.tx_hash ? `${trimAmount(r.amount ?? "")} USDT ${r.tx_hash}` : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
