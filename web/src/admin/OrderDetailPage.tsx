import { useCan } from "./me.js";
import { useState } from "react";
import { api, type OrderDetail } from "./api.js";
import { formatTime, trimAmount } from "./format.js";
import { RefundsPanel } from "./RefundsPanel.js";
import { ResolvePanel } from "./ResolvePanel.js";
import { errorMessage, useApi } from "./useApi.js";

function Fields({ data, testId }: { data: Record<string, unknown>; testId?: string }) {
  return (
    <dl className="fields" data-testid={testId}>
      {Object.entries(data)
        .filter(([, value]) => typeof value !== "object" || value === null)
        .map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd className={name.endsWith("hash") || name.endsWith("address") ? "mono" : undefined}>
              {value === null || value === undefined || value === "" ? "—" : String(value)}
            </dd>
          </div>
        ))}
    </dl>
  );
}

export function OrderDetailPage({ id }: { id: string }) {
  const can = useCan();
  const detail = useApi(() => api.get<OrderDetail>(`/orders/${encodeURIComponent(id)}`), id);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  if (detail.state === "loading") return <p>Loading…</p>;
  if (detail.state === "error") return <p className="error">{detail.message}</p>;
  const { order, events, transaction, settlement, webhooks, meta } = detail.data;
  // Sandbox: on a devnet deployment any order can be paid from the devnet faucet.
  const isDevnet = meta.network === "devnet";

  const run = async (label: string, path: string) => {
    setMessage(null);
    try {
      const result = await api.post<{ tx_hash?: string; amount?: string }>(path);
      setMessage({
        ok: true,
        text: result.tx_hash
          ? `${label}: sent ${trimAmount(result.amount ?? "")} USDT from the devnet faucet, tx ${result.tx_hash}.`
          : `${label}: queued.`,
      });
      detail.reload();
    } catch (caught) {
      setMessage({ ok: false, text: `${label}: ${errorMessage(caught)}` });
    }
  };

  return (
    <>
      <h1>
        Order {order.external_id} <span className={`badge status-${order.status}`}>{order.status}</span>
      </h1>
      <p className="muted">
        {order.merchant_name} · {trimAmount(order.amount_received)} of {trimAmount(order.amount_expected)}{" "}
        USDT · created {formatTime(order.created_at)}
      </p>
      <p className="actions">
        {can("orders.retry_webhook") && (
          <button
            type="button"
            data-testid="retry-webhook"
            onClick={() => void run("Retry webhook", `/orders/${order.id}/retry-webhook`)}
          >
            Retry webhook
          </button>
        )}
        {can("orders.retry_sweep") && (
          <button
            type="button"
            data-testid="retry-sweep"
            onClick={() => void run("Retry sweep", `/orders/${order.id}/retry-sweep`)}
          >
            Retry sweep
          </button>
        )}
        {isDevnet && can("orders.simulate") && (
          <button
            type="button"
            data-testid="simulate-payment"
            title="Devnet only: pay the expected amount from the devnet faucet with a real signed transfer"
            onClick={() => void run("Simulate payment", `/orders/${order.id}/simulate`)}
          >
            Simulate payment
          </button>
        )}
      </p>
      {message && (
        <p className={message.ok ? "notice-ok" : "error"} role="status" data-testid="action-message">
          {message.text}
        </p>
      )}
      <ResolvePanel detail={detail.data} onDone={detail.reload} />
      {can("payouts.read") && <RefundsPanel orderId={order.id} received={order.amount_received} />}
      <div className="grid two">
        <section className="panel">
          <h2>Order</h2>
          <Fields data={{ ...order }} testId="order-fields" />
        </section>
        <section className="panel">
          <h2>Payment</h2>
          {transaction ? (
            <Fields data={transaction} testId="transaction" />
          ) : (
            <p className="muted">No payment seen yet.</p>
          )}
          <h2>Sweep</h2>
          {settlement ? (
            <Fields data={settlement} testId="settlement" />
          ) : (
            <p className="muted">Not swept.</p>
          )}
        </section>
      </div>
      <section className="panel wide">
        <h2>Events</h2>
        <ol className="timeline" data-testid="events">
          {events.map((event) => (
            <li key={event.id}>
              <span className="muted">{formatTime(event.created_at)}</span>{" "}
              <strong>{event.event_type}</strong>{" "}
              <code className="payload">{JSON.stringify(event.payload)}</code>
            </li>
          ))}
        </ol>
      </section>
      {webhooks && webhooks.length > 0 && (
        <section className="panel wide">
          <h2>Webhook deliveries</h2>
          <table data-testid="webhooks">
            <thead>
              <tr>
                <th>Event</th>
                <th>Status</th>
                <th>Attempts</th>
                <th>Next attempt</th>
                <th>Last error</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.map((delivery) => (
                <tr key={String(delivery.id)}>
                  <td>{String(delivery.event)}</td>
                  <td>{String(delivery.status)}</td>
                  <td>
                    {String(delivery.attempts)} / {String(delivery.max_attempts)}
                  </td>
                  <td>{formatTime(delivery.next_attempt_at as string | null)}</td>
                  <td>
                    {delivery.last_status_code ? `HTTP ${String(delivery.last_status_code)} ` : ""}
                    {delivery.last_error ? String(delivery.last_error) : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}
