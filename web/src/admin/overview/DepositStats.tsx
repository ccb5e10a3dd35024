import type { Stats } from "../../api-types.js";
import { formatUsdt as formatAmount } from "../format.js";

/**
 * Confirmed deposits to static addresses: count and amount today, in 7 days and in all. The amounts
 * name the currencies they may add (every currency an enabled chain takes), and say so when two.
 */
export function DepositStats({ deposits }: { deposits: Stats["deposits"] }) {
  const unit = deposits.currencies.length === 0 ? "USDT" : deposits.currencies.join(" + ");
  const formatUsdt = (amount: string) => formatAmount(amount, unit);
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
      {deposits.currencies.length > 1 && (
        <p className="muted small" data-testid="stats-deposits-summed">
          Sum across {deposits.currencies.join(" and ")}.
        </p>
      )}
    </section>
  );
}
