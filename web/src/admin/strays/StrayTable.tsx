import type { StrayTransferView } from "../../api-types.js";
import { formatTime, trimAmount } from "../format.js";
import { Link } from "../router.js";

/** Stray transfers with their confirmations, sweep and resolution; each links to its page. */
export function StrayTable({ strays, testId }: { strays: StrayTransferView[]; testId: string }) {
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
