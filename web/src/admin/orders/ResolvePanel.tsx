import { useEffect, useState } from "react";
import type { OrderDetail, StrayList, StrayTransferView } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime, formatUsdt } from "../format.js";
import { actorLabel } from "../labels.js";
import { Field } from "../ui/Field.js";
import { actionState } from "./order-actions.js";
import { OutcomeLine, useOutcome } from "../ui/Outcome.js";

/**
 * The order page's resolutions: cancel a pending order, accept an underpaid outcome, attach a stray
 * transfer (picked from the unresolved strays, or by its hash). Every action needs a reason; Cancel
 * and Accept appear only when the order's `actions` (decided by the server) allow them.
 */
export function ResolvePanel({ detail, onDone }: { detail: OrderDetail; onDone: () => void }) {
  const [reason, setReason] = useState("");
  const [txHash, setTxHash] = useState("");
  const { outcome, setOutcome, report } = useOutcome();
  const { order, resolutions } = detail;
  const cancel = actionState(detail, "cancel");
  const accept = actionState(detail, "accept");
  const attach = actionState(detail, "attach_transfer");
  const strays = useUnresolvedStrays(attach.allowed);

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
        {(cancel.allowed || accept.allowed) && (
          <p className="actions">
            {cancel.allowed && (
              <button
                type="button"
                data-testid="cancel-order"
                title="Withdraw this order: its address stops accepting payment"
                onClick={() => void act("Cancel", `/orders/${order.id}/cancel`, {})}
              >
                Cancel order
              </button>
            )}
            {accept.allowed && (
              <button
                type="button"
                data-testid="accept-order"
                title="Make an underpaid outcome confirmed at the amount received"
                onClick={() => void act("Accept", `/orders/${order.id}/resolve`, { action: "accept" })}
              >
                Accept {formatUsdt(order.amount_received)}
              </button>
            )}
          </p>
        )}
        {strays.length > 0 && (
          <label>
            Unresolved stray transfer to attach
            <select
              value={txHash}
              onChange={(event) => setTxHash(event.target.value)}
              data-testid="attach-pick"
            >
              <option value="">Choose a stray transfer…</option>
              {strays.map((stray) => (
                <option key={stray.id} value={stray.tx_hash}>
                  {formatUsdt(stray.amount)} to {stray.address.slice(0, 6)}…{stray.address.slice(-4)} ·{" "}
                  {formatTime(stray.created_at)}
                </option>
              ))}
            </select>
          </label>
        )}
        <Field
          label="Or its transaction hash"
          value={txHash}
          onChange={(value) => setTxHash(value.trim())}
          placeholder="64 hex digits"
          className="mono"
          testId="attach-tx-hash"
        />
        <p className="actions">
          <button
            type="button"
            disabled={!attach.allowed || txHash === ""}
            data-testid="attach-transfer"
            onClick={() => void act("Attach", `/orders/${order.id}/attach-transfer`, { tx_hash: txHash })}
          >
            Attach stray transfer
          </button>
        </p>
        <OutcomeLine outcome={outcome} testId="resolve-message" />
      </div>
      {resolutions.length > 0 && (
        <div className="table-scroll" tabIndex={0}>
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
                  <td>{RESOLUTION_WORDS[r.action]}</td>
                  <td>{r.actor ? actorLabel(r.actor.label) : "—"}</td>
                  <td>{r.reason ?? ""}</td>
                  <td className="mono">{r.tx_hash ? `${formatUsdt(r.amount)} ${r.tx_hash}` : ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

const RESOLUTION_WORDS: Record<OrderDetail["resolutions"][number]["action"], string> = {
  cancel: "Cancelled",
  accept: "Underpayment accepted",
  attach: "Stray transfer attached",
};

/** The unresolved strays an order could take, newest first; none while attaching is not allowed. */
function useUnresolvedStrays(enabled: boolean): StrayTransferView[] {
  const [strays, setStrays] = useState<StrayTransferView[]>([]);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    api
      .get<StrayList>("/stray-transfers?state=unresolved&limit=50")
      .then((list) => live && setStrays(list.data.filter((s) => s.status === "confirmed")))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [enabled]);
  return strays;
}
