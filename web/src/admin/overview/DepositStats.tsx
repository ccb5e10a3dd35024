import type { Stats } from "../../api-types.js";
import { CHAIN_LABELS, formatUsdt as formatAmount } from "../format.js";

const chainName = (chain: string) => CHAIN_LABELS[chain as keyof typeof CHAIN_LABELS]?.name ?? chain;

/**
 * Confirmed deposits to static addresses: count and amount today, in 7 days and in all. The amounts
 * name the currencies they add (those of the deposits counted), and say so when two; then each chain
 * and currency's all-time figures follow in their own currency.
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
      {deposits.by_chain_currency.length > 1 && (
        <dl data-testid="stats-deposits-by-chain">
          {deposits.by_chain_currency.map((row) => (
            <div
              key={`${row.chain}/${row.currency}`}
              data-testid={`stats-deposits-${row.chain}-${row.currency}`}
            >
              <dt>
                {chainName(row.chain)} {row.currency}, all time
              </dt>
              <dd>
                {row.total.deposit_count} · {formatAmount(row.total.total_received, row.currency)}
              </dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
