import type { Stats } from "../../api-types.js";
import { formatUsdt } from "../format.js";

/** One window of the order stats (today, 7 days, all time); all time also counts the merchants. */
export function StatsCard({
  title,
  block,
  testId,
}: {
  title: string;
  block: Stats["today"] & { merchant_count?: number };
  testId: string;
}) {
  return (
    <section className="panel" data-testid={testId}>
      <h2>{title}</h2>
      <p className="big">{formatUsdt(block.total_received)}</p>
      <dl>
        <dt>Orders</dt>
        <dd data-testid={`${testId}-orders`}>{block.order_count}</dd>
        <dt>Completed</dt>
        <dd>{block.completed_count}</dd>
        <dt>Success rate</dt>
        <dd>{block.success_rate}%</dd>
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
