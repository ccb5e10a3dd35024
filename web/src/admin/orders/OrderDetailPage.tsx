import type { OrderActionResult, OrderDetail } from "../../api-types.js";
import { api } from "../api.js";
import { formatUsdt } from "../format.js";
import { useCan } from "../me.js";
import { EventTimeline } from "../ui/EventTimeline.js";
import { FieldList } from "../ui/FieldList.js";
import { StatusBadge } from "../ui/StatusBadge.js";
import { When } from "../ui/When.js";
import { actionState, amountOutcome, failingWebhook, type OrderActionState } from "./order-actions.js";
import { OutcomeLine, useOutcome } from "../ui/Outcome.js";
import { useApi } from "../useApi.js";
import { OrderStatusBadge } from "./OrderStatusBadge.js";
import { RefundsPanel } from "./RefundsPanel.js";
import { ResolvePanel } from "./ResolvePanel.js";
import { lastError, WebhookDeliveries } from "./WebhookDeliveries.js";

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
        ? `${label}: sent ${formatUsdt(result.amount)} from the devnet faucet, tx ${result.tx_hash}.`
        : `${label}: queued.`;
    }, label);

  const webhookAction = actionState(detail.data, "retry_webhook");
  const sweepAction = actionState(detail.data, "retry_sweep");
  const simulateAction = actionState(detail.data, "simulate_payment");
  const failing = failingWebhook(detail.data);
  const paidOff = amountOutcome(order);

  return (
    <>
      <h1>
        Order {order.external_id} <OrderStatusBadge status={order.status} />{" "}
        {paidOff && <StatusBadge status={paidOff} testId="order-outcome" />}{" "}
        {failing && (
          <span className="badge bad" data-testid="webhook-failing">
            Webhook failing
          </span>
        )}
      </h1>
      <p className="muted">
        {order.merchant_name} · {formatUsdt(order.amount_received)} received of{" "}
        {formatUsdt(order.amount_expected)} · created <When at={order.created_at} />
      </p>
      {failing && (
        <section className="panel attention" role="alert" data-testid="webhook-attention">
          <h2>The merchant has not been told of this payment</h2>
          <p>
            The last webhook delivery {failing.status === "failed" ? "gave up" : "failed"} after{" "}
            {failing.attempts} of {failing.max_attempts} attempts:{" "}
            <strong data-testid="webhook-error">{lastError(failing)}</strong>.{" "}
            {failing.next_attempt_at ? (
              <>
                Next attempt <When at={failing.next_attempt_at} />.
              </>
            ) : (
              "No further attempt is scheduled: fix the merchant's endpoint, then retry the webhook."
            )}
          </p>
        </section>
      )}
      <div className="actions-row">
        {can("orders.retry_webhook") && (
          <Action
            label="Retry webhook"
            testId="retry-webhook"
            state={webhookAction}
            onClick={() => void run("Retry webhook", `/orders/${order.id}/retry-webhook`)}
          />
        )}
        {can("orders.retry_sweep") && (
          <Action
            label="Retry sweep"
            testId="retry-sweep"
            state={sweepAction}
            onClick={() => void run("Retry sweep", `/orders/${order.id}/retry-sweep`)}
          />
        )}
        {isDevnet && can("orders.simulate") && (
          <Action
            label="Simulate payment"
            testId="simulate-payment"
            state={simulateAction}
            title="Devnet only: pay the expected amount from the devnet faucet with a real signed transfer"
            onClick={() => void run("Simulate payment", `/orders/${order.id}/simulate`)}
          />
        )}
      </div>
      <OutcomeLine outcome={outcome} testId="action-message" />
      <ResolvePanel detail={detail.data} onDone={detail.reload} />
      {can("payouts.read") && <RefundsPanel orderId={order.id} received={order.amount_received} />}
      <div className="grid two">
        <section className="panel">
          <h2>Order</h2>
          <FieldList fields={order} testId="order-fields" hide={["merchant_name", "currency"]} />
        </section>
        <section className="panel">
          <h2>Payment</h2>
          {transaction ? (
            <FieldList fields={transaction} testId="transaction" />
          ) : (
            <p className="empty">
              No payment seen yet. The payer sends USDT to the order's address from its checkout page.
            </p>
          )}
          <h2>Sweep</h2>
          {settlement ? (
            <FieldList fields={settlement} testId="settlement" />
          ) : (
            <p className="empty">Nothing to sweep yet: the sweep starts once a payment is confirmed.</p>
          )}
        </section>
      </div>
      <EventTimeline events={events} testId="events" />
      <WebhookDeliveries webhooks={webhooks} />
    </>
  );
}

/** An action button the server may not allow: disabled, with its reason under it. */
function Action({
  label,
  testId,
  state,
  title,
  onClick,
}: {
  label: string;
  testId: string;
  state: OrderActionState;
  title?: string;
  onClick: () => void;
}) {
  const whyId = `${testId}-why`;
  return (
    <div className="action">
      <button
        type="button"
        data-testid={testId}
        disabled={!state.allowed}
        title={title}
        aria-describedby={state.reason ? whyId : undefined}
        onClick={onClick}
      >
        {label}
      </button>
      {state.reason && (
        <p className="why-not" id={whyId} data-testid={whyId}>
          {state.reason}
        </p>
      )}
    </div>
  );
}
