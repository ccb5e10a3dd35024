import type { OrderActionResult, OrderDetail } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime, trimAmount } from "../format.js";
import { useCan } from "../me.js";
import { EventTimeline } from "../ui/EventTimeline.js";
import { FieldList } from "../ui/FieldList.js";
import { OutcomeLine, useOutcome } from "../ui/Outcome.js";
import { useApi } from "../useApi.js";
import { OrderStatusBadge } from "./OrderStatusBadge.js";
import { RefundsPanel } from "./RefundsPanel.js";
import { ResolvePanel } from "./ResolvePanel.js";
import { WebhookDeliveries } from "./WebhookDeliveries.js";

/** One order: its actions, resolutions, refunds, payment, sweep, events and webhook deliveries. */
export function OrderDetailPage({ id }: { id: string }) {
  const can = useCan();
  const detail = useApi(() => api.get<OrderDetail>(`/orders/${encodeURIComponent(id)}`), id);
  const { outcome, report } = useOutcome();

  if (detail.state === "loading") return <p>Loading…</p>;
  if (detail.state === "error") return <p className="error">{detail.message}</p>;
  const { order, events, transaction, settlement, webhooks, meta } = detail.data;
  // Sandbox: on a devnet deployment any order can be paid from the devnet faucet.
  const isDevnet = meta.network === "devnet";

  const run = (label: string, path: string) =>
    report(async () => {
      const result = await api.post<OrderActionResult>(path);
      detail.reload();
      return "tx_hash" in result
        ? `${label}: sent ${trimAmount(result.amount)} USDT from the devnet faucet, tx ${result.tx_hash}.`
        : `${label}: queued.`;
    }, label);

  return (
    <>
      <h1>
        Order {order.external_id} <OrderStatusBadge status={order.status} />
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
      <OutcomeLine outcome={outcome} testId="action-message" />
      <ResolvePanel detail={detail.data} onDone={detail.reload} />
      {can("payouts.read") && <RefundsPanel orderId={order.id} received={order.amount_received} />}
      <div className="grid two">
        <section className="panel">
          <h2>Order</h2>
          <FieldList fields={order} testId="order-fields" />
        </section>
        <section className="panel">
          <h2>Payment</h2>
          {transaction ? (
            <FieldList fields={transaction} testId="transaction" />
          ) : (
            <p className="muted">No payment seen yet.</p>
          )}
          <h2>Sweep</h2>
          {settlement ? (
            <FieldList fields={settlement} testId="settlement" />
          ) : (
            <p className="muted">Not swept.</p>
          )}
        </section>
      </div>
      <EventTimeline events={events} testId="events" />
      <WebhookDeliveries webhooks={webhooks} />
    </>
  );
}
