import { useState } from "react";
import { api, type Pagination, type StrayDetail, type StrayTransferView } from "./api.js";
import { formatTime, trimAmount } from "./format.js";
import { useCan } from "./me.js";
import { Link, navigate } from "./router.js";
import { StrayRefundPanel } from "./StrayRefundPanel.js";
import { errorMessage, useApi } from "./useApi.js";

/**
 * Stray transfers (DESIGN.md 4 and 13): USDT that reached one of our addresses while no order held
 * it. The list shows unresolved ones first; a stray's page shows its address's history and the
 * actions (attach to an order, dismiss), each with a reason.
 */
export function StrayTransfersPage() {
  const list = useApi(
    () => api.get<{ data: StrayTransferView[]; pagination: Pagination }>("/stray-transfers?limit=100"),
    "strays",
  );
  if (list.state === "loading") return <p>Loading…</p>;
  if (list.state === "error") return <p className="error">{list.message}</p>;
  return (
    <>
      <h1>Stray transfers</h1>
      <p className="muted">
        Transfers to addresses no order held. Their balance is swept to the cold wallet by the address&apos;s
        own settlement; attach one to the order it was meant for, refund it, or dismiss it with a reason.
      </p>
      {list.data.data.length === 0 ? (
        <p className="muted" data-testid="no-strays">
          No stray transfers.
        </p>
      ) : (
        <StrayTable strays={list.data.data} testId="strays" />
      )}
    </>
  );
}

function StrayTable({ strays, testId }: { strays: StrayTransferView[]; testId: string }) {
  return (
    <table data-testid={testId}>
      <thead>
        <tr>
          <th>When</th>
          <th>Amount</th>
          <th>Address</th>
          <th>Status</th>
          <th>Sweep</th>
          <th>Resolution</th>
        </tr>
      </thead>
      <tbody>
        {strays.map((s) => (
          <tr key={s.id}>
            <td>
              <Link to={`/admin/stray-transfers/${s.id}`}>{formatTime(s.created_at)}</Link>
            </td>
            <td>{trimAmount(s.amount)} USDT</td>
            <td className="mono">{s.address}</td>
            <td>
              {s.status} ({s.confirmations} conf.)
            </td>
            <td>{s.sweep.status}</td>
            <td>
              {s.resolution === null ? (
                <strong>unresolved</strong>
              ) : s.order_id ? (
                <Link to={`/admin/orders/${s.order_id}`}>attached</Link>
              ) : (
                s.resolution
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function StrayTransferPage({ id }: { id: string }) {
  const detail = useApi(() => api.get<StrayDetail>(`/stray-transfers/${encodeURIComponent(id)}`), id);
  const [reason, setReason] = useState("");
  const [orderId, setOrderId] = useState("");
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [sweepMessage, setSweepMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const can = useCan();
  if (detail.state === "loading") return <p>Loading…</p>;
  if (detail.state === "error") return <p className="error">{detail.message}</p>;
  const { stray, address } = detail.data;
  const open = stray.resolution === null && stray.status === "confirmed";

  const dismiss = async () => {
    setMessage(null);
    try {
      await api.post(`/stray-transfers/${stray.id}/dismiss`, { reason });
      setMessage({ ok: true, text: "Dismissed." });
      detail.reload();
    } catch (caught) {
      setMessage({ ok: false, text: `Dismiss: ${errorMessage(caught)}` });
    }
  };
  const retrySweep = async () => {
    setSweepMessage(null);
    try {
      await api.post(`/stray-transfers/${stray.id}/retry-sweep`, {});
      setSweepMessage({ ok: true, text: "Sweep queued again." });
      detail.reload();
    } catch (caught) {
      setSweepMessage({ ok: false, text: `Retry sweep: ${errorMessage(caught)}` });
    }
  };
  // A failed sweep of the address, or dust it left below SWEEP_MIN_USDT, can be queued again.
  const sweepRetryable = address.settlement?.status === "failed" || stray.sweep.status === "below_minimum";
  const attach = async () => {
    setMessage(null);
    try {
      await api.post(`/orders/${encodeURIComponent(orderId)}/attach-transfer`, {
        tx_hash: stray.tx_hash,
        log_index: stray.log_index,
        reason,
      });
      navigate(`/admin/orders/${orderId}`);
    } catch (caught) {
      setMessage({ ok: false, text: `Attach: ${errorMessage(caught)}` });
    }
  };

  return (
    <>
      <h1>
        Stray transfer of {trimAmount(stray.amount)} USDT{" "}
        <span className="badge" data-testid="stray-resolution">
          {stray.resolution ?? "unresolved"}
        </span>
      </h1>
      <p className="muted mono">
        {stray.tx_hash} #{stray.log_index} · from {stray.from_address} · to {stray.address}
      </p>
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
            <label>
              Reason
              <input value={reason} onChange={(e) => setReason(e.target.value)} data-testid="stray-reason" />
            </label>
            <label>
              Order id to attach it to
              <input
                value={orderId}
                onChange={(e) => setOrderId(e.target.value.trim())}
                className="mono"
                data-testid="stray-order-id"
              />
            </label>
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
        {message && (
          <p className={message.ok ? "notice-ok" : "error"} role="status" data-testid="stray-message">
            {message.text}
          </p>
        )}
      </section>
      <StrayRefundPanel stray={stray} onDone={detail.reload} />
      <section className="panel wide" data-testid="address-history">
        <h2>Address {address.address}</h2>
        <p className="muted">
          {address.status}
          {address.order_id && (
            <>
              {" "}
              · held by <Link to={`/admin/orders/${address.order_id}`}>its order</Link>
            </>
          )}
          {address.last_order_id && (
            <>
              {" "}
              · last order <Link to={`/admin/orders/${address.last_order_id}`}>{address.last_order_id}</Link>
            </>
          )}
          {address.settlement && (
            <>
              {" "}
              · sweep <span data-testid="address-sweep-status">{String(address.settlement.status)}</span>
              {address.settlement.last_error && <> ({address.settlement.last_error})</>}
            </>
          )}
        </p>
        {sweepRetryable && can("strays.retry_sweep") && (
          <p className="actions">
            <button type="button" data-testid="stray-retry-sweep" onClick={() => void retrySweep()}>
              Retry sweep
            </button>
          </p>
        )}
        {sweepMessage && (
          <p
            className={sweepMessage.ok ? "notice-ok" : "error"}
            role="status"
            data-testid="stray-sweep-message"
          >
            {sweepMessage.text}
          </p>
        )}
        <StrayTable strays={address.strays} testId="address-strays" />
      </section>
    </>
  );
}
