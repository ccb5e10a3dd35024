import type { Stats } from "../../api-types.js";
import { formatUsdt } from "../format.js";

/** The parts of the success rate: paid in full of the finished orders, the rest short or expired. */
function successParts(block: Stats["today"]): string {
  if (block.final_count === 0) return "(no finished orders)";
  const short = block.final_count - block.paid_in_full_count - block.expired_count;
  return `(${block.paid_in_full_count} of ${block.final_count} finished paid in full, ${short} short, ${block.expired_count} expired)`;
}

/**
 * One window of the order stats (today, 7 days, all time); all time also counts the merchants. The
 * amount names the currencies it adds: "USDT", or "USDC + USDT" with a note that it is a sum across
 * currencies (the per-currency figures are in the chain and currency table).
 */
export function StatsCard({
  title,
  block,
  testId,
  currencies,
}: {
  title: string;
  block: Stats["today"] & { merchant_count?: number };
  testId: string;
  currencies: string[];
}) {
  const unit = currencies.length === 0 ? "USDT" : currencies.join(" + ");
  return (
    <section className="panel" data-testid={testId}>
      <h2>{title}</h2>
      <p className="big" data-testid={`${testId}-received`}>
        {formatUsdt(block.total_received, unit)}
      </p>
      {currencies.length > 1 && (
        <p className="muted small" data-testid={`${testId}-summed`}>
          Sum across {currencies.join(" and ")}; each currency is shown apart below.
        </p>
      )}
      <dl>
        <dt>Orders</dt>
        <dd data-testid={`${testId}-orders`}>{block.order_count}</dd>
        <dt>Completed</dt>
        <dd>{block.completed_count}</dd>
        <dt>Success rate</dt>
        <dd data-testid={`${testId}-success`}>
          {block.paid_in_full_rate}%<span className="muted small"> {successParts(block)}</span>
        </dd>
        {block.merchant_count !== undefined && (
          <>
            <dt>Merchants</dt>
            <dd>{block.merchant_count}</dd>
          </>
        )}
      </dl>
    </section>
  );
}
