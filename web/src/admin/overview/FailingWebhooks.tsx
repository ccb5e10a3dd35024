import type { IncidentList } from "../../api-types.js";
import { Link } from "../router.js";
import { When } from "../ui/When.js";

type FailingWebhook = IncidentList["failing_webhooks"][number];

const SUBJECT: Record<FailingWebhook["subject"], string> = {
  order: "Order",
  payout: "Payout",
  refund: "Refund",
};

/** "HTTP 500: internal error", or the connection error alone, or the status alone. */
function failureText(w: FailingWebhook): string {
  const status = w.last_status_code === null ? null : `HTTP ${w.last_status_code}`;
  if (status && w.last_error)
    return w.last_error.includes(status) ? w.last_error : `${status}: ${w.last_error}`;
  return status ?? w.last_error ?? "No reply";
}

/**
 * Failing webhooks, first on the overview: each order or payout whose merchant did not accept the
 * latest webhook, with what the receiver answered and when the next try is (or that none is left).
 * Nothing is shown while every webhook is delivered.
 */
export function FailingWebhooks({ failing }: { failing: FailingWebhook[] }) {
  if (failing.length === 0) return null;
  return (
    <section className="panel wide attention" data-testid="failing-webhooks">
      <h2>Failing webhooks</h2>
      <p className="muted">
        These merchants have not accepted a webhook. Fix their endpoint, then open the order or payout and
        retry it, or wait for the next try.
      </p>
      <div className="table-scroll" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th>For</th>
              <th>Merchant</th>
              <th>Last answer</th>
              <th>Tries</th>
              <th>Next try</th>
            </tr>
          </thead>
          <tbody>
            {failing.map((w) => (
              <tr key={w.delivery_id} data-testid="failing-webhook" data-subject-id={w.subject_id}>
                <td>
                  <Link to={w.link}>
                    {SUBJECT[w.subject]} {w.external_id ?? ""}
                  </Link>
                </td>
                <td>{w.merchant_name}</td>
                <td>{failureText(w)}</td>
                <td className="nowrap">
                  {w.attempts} of {w.max_attempts}
                </td>
                <td className="nowrap">
                  {w.status === "pending" ? <When at={w.next_attempt_at} /> : "None left: retry it by hand"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
