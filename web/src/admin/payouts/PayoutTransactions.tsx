import type { PayoutDetail } from "../../api-types.js";
import { formatTime, formatUsdt } from "../format.js";

type Transactions = PayoutDetail["transactions"];

/**
 * The transfers signed for a payout: on TRON a retry after a failure on chain is a new attempt; on
 * an EVM chain every signed version is a row (a replacement at a higher fee keeps the nonce), and
 * only the version that landed has a gas cost.
 */
export function PayoutTransactions({
  transactions,
  chain,
  symbol,
}: {
  transactions: Transactions;
  chain: string;
  symbol: string;
}) {
  return (
    <section className="panel wide">
      <h2>Transactions</h2>
      {transactions.length === 0 ? (
        <p className="muted">None signed yet.</p>
      ) : (
        <div className="table-scroll" tabIndex={0}>
          {chain === "tron" ? (
            <TronTransactions transactions={transactions} />
          ) : (
            <EvmTransactions transactions={transactions} symbol={symbol} />
          )}
        </div>
      )}
    </section>
  );
}

function TronTransactions({ transactions }: { transactions: Transactions }) {
  return (
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
  );
}

function EvmTransactions({ transactions, symbol }: { transactions: Transactions; symbol: string }) {
  return (
    <table data-testid="payout-transactions">
      <thead>
        <tr>
          <th>Attempt</th>
          <th>Tx hash</th>
          <th className="num">Nonce</th>
          <th className="num">Replacement</th>
          <th>State</th>
          <th>Result</th>
          <th className="num">Gas used</th>
          <th className="num">Gas price (wei)</th>
          <th className="num">Gas cost</th>
          <th>Signed</th>
          <th>Landed</th>
        </tr>
      </thead>
      <tbody>
        {transactions.map((t) => (
          <tr key={t.tx_hash} data-testid={`payout-tx-${t.tx_hash}`}>
            <td>{t.attempt}</td>
            <td className="mono">{t.tx_hash}</td>
            <td className="num">{t.nonce ?? "—"}</td>
            <td className="num">{t.generation ?? "—"}</td>
            <td>{t.state}</td>
            <td>{t.result ?? "—"}</td>
            <td className="num">{t.gas_used ?? "—"}</td>
            <td className="num">{t.effective_gas_price_wei ?? "—"}</td>
            <td className="num">{t.gas_cost === null ? "—" : `${t.gas_cost} ${symbol}`}</td>
            <td>{formatTime(t.created_at)}</td>
            <td>{formatTime(t.landed_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
