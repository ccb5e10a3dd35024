import type { WalletStatus } from "../../api-types.js";
import { formatUsdt } from "../format.js";

/** TRX burnt per sweep (from the transaction infos), by mode: the last 7 UTC days and all time. */
export function SweepCosts({ costs }: { costs: WalletStatus["sweep_costs"] }) {
  const modes = ["burn", "delegate"] as const;
  return (
    <section className="panel wide">
      <h2>Sweep cost (TRX burnt)</h2>
      <div className="table-scroll" tabIndex={0}>
        <table data-testid="sweep-costs">
          <thead>
            <tr>
              <th>Mode</th>
              <th>Sweeps, 7 days</th>
              <th>Average, 7 days</th>
              <th>Total, 7 days</th>
              <th>Sweeps, all time</th>
              <th>Average, all time</th>
              <th>Total, all time</th>
            </tr>
          </thead>
          <tbody>
            {modes.map((mode) => {
              const { week, total } = costs[mode];
              return (
                <tr key={mode} data-testid={`sweep-cost-${mode}`}>
                  <td>{mode}</td>
                  <td>{week.count}</td>
                  <td>{formatUsdt(week.average_trx, "TRX")}</td>
                  <td>{formatUsdt(week.total_trx, "TRX")}</td>
                  <td>{total.count}</td>
                  <td>{formatUsdt(total.average_trx, "TRX")}</td>
                  <td>{formatUsdt(total.total_trx, "TRX")}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
