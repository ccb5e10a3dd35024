import type { Payout } from "../../api-types.js";
import { formatTime, formatUsdt, shortId } from "../format.js";
import { actorLabel } from "../labels.js";
import { Link } from "../router.js";
import { PayoutActions } from "./PayoutActions.js";
import { PayoutStatusBadge } from "./PayoutStatusBadge.js";

/** One tab's refunds and payouts, each with its decisions; `empty` when there are none. */
export function PayoutTable({
  rows,
  merchants,
  testId,
  onChanged,
  empty,
}: {
  rows: Payout[];
  /** merchant id -> name */
  merchants: Map<string, string>;
  testId: string;
  onChanged: () => void;
  empty: string;
}) {
  if (rows.length === 0)
    return (
      <p className="muted" data-testid={`${testId}-empty`}>
        {empty}
      </p>
    );
  return (
    <div className="table-scroll" tabIndex={0}>
      <table data-testid={testId}>
        <thead>
          <tr>
            <th>Created</th>
            <th>Kind</th>
            <th>Merchant</th>
            <th className="num">Amount</th>
            <th>To</th>
            <th>Status</th>
            <th>Created by</th>
            <th>
              <span className="offscreen">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((payout) => (
            <tr key={payout.id} data-testid={`payout-${payout.id}`}>
              <td className="nowrap">{formatTime(payout.created_at)}</td>
              <td>{payout.kind === "refund" ? "Refund" : "Payout"}</td>
              <td>{merchants.get(payout.merchant_id) ?? shortId(payout.merchant_id)}</td>
              <td className="num nowrap">{formatUsdt(payout.amount)}</td>
              <td className="mono">{payout.address ?? "—"}</td>
              <td>
                <PayoutStatusBadge status={payout.status} />
                {payout.last_error && <div className="warning">{payout.last_error}</div>}
              </td>
              <td>{actorLabel(payout.created_by)}</td>
              <td>
                <div className="row-actions">
                  <Link to={`/admin/payouts/${payout.id}`} testId="payout-link">
                    Details
                  </Link>
                  <PayoutActions payout={payout} onDone={onChanged} />
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
