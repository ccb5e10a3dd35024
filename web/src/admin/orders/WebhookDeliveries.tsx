import type { OrderDetail } from "../../api-types.js";
import { eventLabel } from "../labels.js";
import { StatusBadge } from "../ui/StatusBadge.js";
import { When } from "../ui/When.js";

/** The order's webhook deliveries: attempts, the next one, and why the last one failed. */
export function WebhookDeliveries({ webhooks }: { webhooks: OrderDetail["webhooks"] }) {
  if (webhooks.length === 0)
    return (
      <section className="panel wide">
        <h2>Webhook deliveries</h2>
        <p className="empty">No webhook yet: the merchant is notified once the payment reaches an outcome.</p>
      </section>
    );
  return (
    <section className="panel wide">
      <h2>Webhook deliveries</h2>
      <div className="table-scroll" tabIndex={0}>
        <table data-testid="webhooks">
          <thead>
            <tr>
              <th>Event</th>
              <th>Status</th>
              <th>Attempts</th>
              <th>Next attempt</th>
              <th>Last result</th>
            </tr>
          </thead>
          <tbody>
            {webhooks.map((delivery) => (
              <tr key={delivery.id}>
                <td>{eventLabel(delivery.event)}</td>
                <td>
                  <StatusBadge status={deliveryStatus(delivery)} />
                </td>
                <td>
                  {delivery.attempts} / {delivery.max_attempts}
                </td>
                <td>
                  <When at={delivery.next_attempt_at} />
                </td>
                <td className={delivery.status === "delivered" ? undefined : "error"}>
                  {delivery.status === "delivered" ? (
                    <>
                      Delivered <When at={delivery.delivered_at} />
                    </>
                  ) : (
                    lastError(delivery)
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** A failed attempt's reason: the receiver's HTTP status and the error; nothing for a success. */
export function lastError(
  delivery: Pick<OrderDetail["webhooks"][number], "last_status_code" | "last_error">,
): string {
  const status = delivery.last_status_code;
  const code = status !== null && (status < 200 || status >= 300) ? `HTTP ${status}` : null;
  const error = delivery.last_error;
  if (code && error?.startsWith(code)) return error;
  return [code, error].filter(Boolean).join(" · ") || "—";
}

/** A delivery's state as the badge names it: a pending delivery that already failed is retrying. */
export function deliveryStatus(delivery: OrderDetail["webhooks"][number]): string {
  if (delivery.status !== "pending") return delivery.status;
  return delivery.attempts > 0 ? "retrying" : "queued";
}
