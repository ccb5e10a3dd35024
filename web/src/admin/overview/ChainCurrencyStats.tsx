import type { Stats } from "../../api-types.js";
import { CHAIN_LABELS, formatUsdt } from "../format.js";

type Row = Stats["by_chain_currency"][number];

const chainName = (chain: string) => CHAIN_LABELS[chain as keyof typeof CHAIN_LABELS]?.name ?? chain;

/**
 * The order figures per chain and currency (issue 39 part 8): each row's amounts are in its own
 * currency, never added to another's.
 */
export function ChainCurrencyStats({ rows }: { rows: Row[] }) {
  return (
    <section className="panel wide">
      <h2>By chain and currency</h2>
      <div className="table-scroll" tabIndex={0}>
        <table data-testid="stats-by-chain">
          <thead>
            <tr>
              <th>Chain</th>
              <th>Currency</th>
              <th>Today</th>
              <th>Last 7 days</th>
              <th>All time</th>
              <th>Orders, all time</th>
              <th>Success rate, all time</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr
                key={`${row.chain}/${row.currency}`}
                data-testid={`stats-by-chain-${row.chain}-${row.currency}`}
              >
                <td>{chainName(row.chain)}</td>
                <td>{row.currency}</td>
                <td>{formatUsdt(row.today.total_received, row.currency)}</td>
                <td>{formatUsdt(row.week.total_received, row.currency)}</td>
                <td>{formatUsdt(row.total.total_received, row.currency)}</td>
                <td>{row.total.order_count}</td>
                <td>{row.total.paid_in_full_rate}%</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
