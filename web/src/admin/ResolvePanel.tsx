import { useState } from "react";
import { api, type OrderDetail } from "./api.js";
import { formatTime, trimAmount } from "./format.js";
import { errorMessage } from "./useApi.js";

/**
 * The order page's resolutions (DESIGN.md 13): cancel a pending order, accept an underpaid outcome,
 * attach a stray transfer. Every action needs a reason; the buttons follow the order's `actions`.
 */
export function ResolvePanel({ detail, onDone }: { detail: OrderDetail; onDone: () => void }) {
  const [reason, setReason] = useState("");
  const [txHash, setTxHash] = useState("");
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const { order } = detail;
  const actions = detail.actions ?? { cancel: false, accept: false, attach: false };

  const act = async (label: string, path: string, body: Record<string, unknown>) => {
    setMessage(null);
    if (reason.trim() === "") {
      setMessage({ ok: false, text: `${label}: give a reason first.` });
      return;
    }
    try {
      await api.post(path, { ...body, reason });
      setMessage({ ok: true, text: `${label}: done.` });
      setReason("");
      setTxHash("");
      onDone();
    } catch (caught) {
      setMessage({ ok: false, text: `${label}: ${errorMessage(caught)}` });
    }
  };

  return (
    <section className="panel wide" data-testid="resolve-panel">
      <h2>Resolve</h2>
      <div className="stack">
        <label>
          Reason (kept in the order's events and the audit log)
          <input value={reason} onChange={(e) => setReason(e.target.value)} data-testid="resolution-reason" />
        </label>
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
        <label>
          Stray transfer to attach (transaction hash)
          <input
            value={txHash}
            onChange={(e) => setTxHash(e.target.value.trim())}
            placeholder="64 hex digits"
            className="mono"
            data-testid="attach-tx-hash"
          />
        </label>
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
        {message && (
          <p className={message.ok ? "notice-ok" : "error"} role="status" data-testid="resolve-message">
            {message.text}
          </p>
        )}
      </div>
      {(detail.resolutions ?? []).length > 0 && (
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
            {(detail.resolutions ?? []).map((r) => (
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
