import type { DepositList } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime, formatUsdt } from "../format.js";
import { Link } from "../router.js";
import { useApi } from "../useApi.js";

/** The overview's deposits panel: the newest deposits to static addresses. */
export function RecentDeposits() {
  const recent = useApi(() => api.get<DepositList>("/deposits?limit=10"), "recent-deposits");
  if (recent.state !== "ok") return null;
  return (
    <section className="panel" data-testid="recent-deposits">
      <h2>Recent deposits</h2>
      {recent.data.data.length === 0 ? (
        <p>No deposits to static addresses yet.</p>
      ) : (
        <div className="table-scroll" tabIndex={0}>
          <table>
            <tbody>
              {recent.data.data.map((d) => (
                <tr key={d.id} data-testid="recent-deposit">
                  <td>
                    <Link to={`/admin/deposit-addresses/${d.deposit_address_id}`}>{d.customer_ref}</Link>
                  </td>
                  <td>{formatUsdt(d.amount)}</td>
                  <td>{d.status}</td>
                  <td>{formatTime(d.detected_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
