import type { WalletStatus } from "../../api-types.js";
import { CHAIN_LABELS, formatUsdt } from "../format.js";

/**
 * TRX burnt per sweep (from the transaction infos), by mode: the last 7 UTC days and all time; then
 * each EVM chain's sweeps over the same windows, in its native coin, exactly (18 decimals).
 */
export function SweepCosts({ costs }: { costs: WalletStatus["sweep_costs"] }) {
  const modes = ["burn", "delegate"] as const;
  return (
    <>
      <TronSweepCosts costs={costs} modes={modes} />
      {costs.evm.length > 0 && <EvmSweepCosts costs={costs.evm} />}
    </>
  );
}

function TronSweepCosts({
  costs,
  modes,
}: {
  costs: WalletStatus["sweep_costs"];
  modes: readonly ("burn" | "delegate")[];
}) {
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

function EvmSweepCosts({ costs }: { costs: WalletStatus["sweep_costs"]["evm"] }) {
  const name = (chain: string) => CHAIN_LABELS[chain as keyof typeof CHAIN_LABELS]?.name ?? chain;
  return (
    <section className="panel wide">
      <h2>EVM sweep cost (native coin)</h2>
      <div className="table-scroll" tabIndex={0}>
        <table data-testid="evm-sweep-costs">
          <thead>
            <tr>
              <th>Chain</th>
              <th>Sweeps, 7 days</th>
              <th>Average, 7 days</th>
              <th>Total, 7 days</th>
              <th>Sweeps, all time</th>
              <th>Average, all time</th>
              <th>Top-up gas, all time</th>
              <th>Sweep gas, all time</th>
              <th>Total, all time</th>
              <th>Dust left on addresses</th>
            </tr>
          </thead>
          <tbody>
            {costs.map((c) => {
              const coin = (amount: string) => `${amount} ${c.native_symbol}`;
              const { week, total } = c.windows;
              return (
                <tr key={c.chain} data-testid={`evm-sweep-cost-${c.chain}`}>
                  <td>{name(c.chain)}</td>
                  <td>{week.count}</td>
                  <td>{coin(week.average)}</td>
                  <td>{coin(week.total)}</td>
                  <td>{total.count}</td>
                  <td>{coin(total.average)}</td>
                  <td>{coin(total.gas_cost)}</td>
                  <td>{coin(total.sweep_gas_cost)}</td>
                  <td>{coin(total.total)}</td>
                  <td>{coin(c.dust)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}
