import type { StrayTransferView } from "../../api-types.js";
import { formatTime, formatUsdt } from "../format.js";
import { statusLabel } from "../labels.js";
import { Link } from "../router.js";

/** Stray transfers with their confirmations, sweep and resolution; each links to its page. */
export function StrayTable({ strays, testId }: { strays: StrayTransferView[]; testId: string }) {
  return (
    <div className="table-scroll" tabIndex={0}>
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
              <td className="nowrap">{formatUsdt(s.amount)}</td>
              <td className="mono">{s.address}</td>
              <td>{s.status === "confirmed" ? "Confirmed" : `Confirming (${s.confirmations})`}</td>
              <td>{statusLabel(s.sweep.status)}</td>
              <td>
                {s.resolution === null ? (
                  <strong>Unresolved</strong>
                ) : s.order_id ? (
                  <Link to={`/admin/orders/${s.order_id}`}>Attached to an order</Link>
                ) : (
                  statusLabel(s.resolution)
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
