import type { IncidentList } from "../../api-types.js";
import { formatTime, formatUsdt } from "../format.js";
import { Link } from "../router.js";

/** What needs an operator: failed webhooks and sweeps, stray transfers, deposits to disabled addresses. */
export function IncidentsPanel({ incidents }: { incidents: IncidentList }) {
  const { data: failures, stray_transfers: strays, deposits_to_disabled_addresses: disabled } = incidents;
  return (
    <section className="panel wide">
      <h2>Incidents</h2>
      {failures.length === 0 && strays.length === 0 && disabled.length === 0 ? (
        <p className="muted" data-testid="no-incidents">
          No failed webhooks or sweeps.
        </p>
      ) : (
        <div className="table-scroll" tabIndex={0}>
          <table data-testid="incidents">
            <thead>
              <tr>
                <th>When</th>
                <th>What</th>
                <th>Merchant</th>
                <th>Order</th>
                <th>Reason</th>
              </tr>
            </thead>
            <tbody>
              {failures.map((incident) => (
                <tr key={incident.id}>
                  <td>{formatTime(incident.created_at)}</td>
                  <td>{incident.event_type === "sweep_failed" ? "Sweep failed" : "Webhook failed"}</td>
                  <td>{incident.merchant_name}</td>
                  <td>
                    <Link to={`/admin/orders/${incident.order_id}`}>{incident.external_id}</Link>
                  </td>
                  <td>{String(incident.payload.reason ?? "")}</td>
                </tr>
              ))}
              {strays.map((stray) => (
                <tr key={stray.id} data-testid="stray-incident">
                  <td>{formatTime(stray.created_at)}</td>
                  <td>Stray transfer</td>
                  <td>—</td>
                  <td>
                    <Link to={`/admin/stray-transfers/${stray.id}`}>
                      {formatUsdt(stray.amount)} to {stray.address}
                    </Link>
                  </td>
                  <td>no order held the address</td>
                </tr>
              ))}
              {disabled.map((deposit) => (
                <tr key={deposit.id} data-testid="disabled-deposit-incident">
                  <td>{formatTime(deposit.detected_at)}</td>
                  <td>Deposit to a disabled address</td>
                  <td>—</td>
                  <td>
                    <Link to={`/admin/deposit-addresses/${deposit.deposit_address_id}`}>
                      {formatUsdt(deposit.amount)} from customer {deposit.customer_ref}
                    </Link>
                  </td>
                  <td>credited all the same ({deposit.status})</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
