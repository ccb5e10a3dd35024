import type { OrderDetail } from "../../api-types.js";
import { formatTime } from "../format.js";

/** The order's webhook deliveries: attempts, the next one, and why the last one failed. */
export function WebhookDeliveries({ webhooks }: { webhooks: OrderDetail["webhooks"] }) {
  if (webhooks.length === 0) return null;
  return (
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
            <tr key={delivery.id}>
              <td>{delivery.event}</td>
              <td>{delivery.status}</td>
              <td>
                {delivery.attempts} / {delivery.max_attempts}
              </td>
              <td>{formatTime(delivery.next_attempt_at)}</td>
              <td>
                {delivery.last_status_code ? `HTTP ${delivery.last_status_code} ` : ""}
                {delivery.last_error ?? ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
