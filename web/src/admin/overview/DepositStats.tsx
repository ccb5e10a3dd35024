import type { Stats } from "../../api-types.js";
import { formatUsdt } from "../format.js";

/** Confirmed deposits to static addresses: count and USDT today, in 7 days and in all. */
export function DepositStats({ deposits }: { deposits: Stats["deposits"] }) {
  return (
    <section className="panel" data-testid="stats-deposits">
      <h2>Deposits to static addresses</h2>
      <dl>
        <dt>Today</dt>
        <dd data-testid="stats-deposits-today">
          {deposits.today.deposit_count} · {formatUsdt(deposits.today.total_received)}
        </dd>
        <dt>Last 7 days</dt>
        <dd>
          {deposits.week.deposit_count} · {formatUsdt(deposits.week.total_received)}
        </dd>
        <dt>All time</dt>
        <dd data-testid="stats-deposits-total">
          {deposits.total.deposit_count} · {formatUsdt(deposits.total.total_received)}
        </dd>
      </dl>
    </section>
  );
}
