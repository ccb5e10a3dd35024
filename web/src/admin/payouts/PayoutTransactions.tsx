import type { PayoutDetail } from "../../api-types.js";
import { formatTime, formatUsdt } from "../format.js";

/** The transfers signed for a payout: a retry after a failure on chain is a new attempt. */
export function PayoutTransactions({ transactions }: { transactions: PayoutDetail["transactions"] }) {
  return (
    <section className="panel wide">
      <h2>Transactions</h2>
      {transactions.length === 0 ? (
        <p className="muted">None signed yet.</p>
      ) : (
        <div className="table-scroll" tabIndex={0}>
          <table data-testid="payout-transactions">
            <thead>
              <tr>
                <th>Attempt</th>
                <th>Tx hash</th>
                <th>State</th>
                <th>Mode</th>
                <th>Result</th>
                <th className="num">TRX burnt</th>
                <th className="num">Energy</th>
                <th>Signed</th>
                <th>Landed</th>
              </tr>
            </thead>
            <tbody>
              {transactions.map((t) => (
                <tr key={t.tx_hash}>
                  <td>{t.attempt}</td>
                  <td className="mono">{t.tx_hash}</td>
                  <td>{t.state}</td>
                  <td>{t.mode}</td>
                  <td>{t.result ?? "—"}</td>
                  <td className="num">{t.fee_trx === null ? "—" : formatUsdt(t.fee_trx, "TRX")}</td>
                  <td className="num">{t.energy_used ?? "—"}</td>
                  <td>{formatTime(t.created_at)}</td>
                  <td>{formatTime(t.landed_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
