import type { AdminChainStatus } from "../../api-types.js";

type ChainEntry = AdminChainStatus["chains"][number];
import { formatTime } from "../format.js";

const STATE_LABEL = {
  healthy: "healthy",
  failing: "set aside (errors)",
  lagging: "set aside (behind)",
} as const;

/**
 * Every enabled chain as its scanner sees it (GET /chain): head, finalized head, the scanner's lag
 * and every node of the chain's node list; the overview reloads it every few seconds.
 */
export function ChainPanel({ chain }: { chain: AdminChainStatus }) {
  return (
    <>
      {chain.chains.map((entry) => (
        <ChainSection key={entry.chain} chain={entry} alertAbove={chain.scanner_lag_alert_blocks} />
      ))}
    </>
  );
}

function ChainSection({ chain, alertAbove }: { chain: ChainEntry; alertAbove: number }) {
  const lag = chain.scanner_lag_blocks;
  const behind = lag !== null && lag > alertAbove;
  return (
    <section className="panel wide" data-testid="chain-panel" data-chain={chain.chain}>
      <h2>
        {chain.chain_name} <span className="muted">{chain.currencies.join(", ")}</span>
      </h2>
      <p data-testid="scanner-lag" data-lag={lag ?? ""} className={behind ? "error" : undefined}>
        {lag === null
          ? "Scanner lag: unknown (no head or nothing scanned yet)"
          : `Scanner lag: ${lag} block${lag === 1 ? "" : "s"} behind the head`}{" "}
        <span className="muted">
          (head {chain.head ?? "—"}, scanned {chain.scanned ?? "—"}; alert above {alertAbove})
        </span>
      </p>
      <p data-testid="finalized" data-finalized={chain.finalized ?? ""}>
        {chain.finalized === null
          ? "Finalized: unknown"
          : `Finalized: block ${chain.finalized}, ${chain.finality_lag_blocks ?? "—"} behind the head`}
      </p>
      <div className="table-scroll" tabIndex={0}>
        <table data-testid="nodes">
          <thead>
            <tr>
              <th>Node</th>
              <th>URL</th>
              <th>Role</th>
              <th>State</th>
              <th>Head</th>
              <th>Lag vs best</th>
              <th>Calls / errors</th>
            </tr>
          </thead>
          <tbody>
            {chain.nodes.map((n) => (
              <tr
                key={n.node}
                data-testid="node-row"
                data-node={n.node}
                data-state={n.state}
                data-active={String(n.active)}
              >
                <td>
                  {n.node}
                  {n.active && (
                    <>
                      {" "}
                      <span className="badge ok">in use</span>
                    </>
                  )}
                </td>
                <td className="mono">{n.url}</td>
                <td>{n.role}</td>
                <td>
                  <span className={`badge ${n.state === "healthy" ? "ok" : "bad"}`}>
                    {STATE_LABEL[n.state]}
                  </span>
                  {n.retry_at && <span className="muted"> retry {formatTime(n.retry_at)}</span>}
                </td>
                <td>{n.head ?? "—"}</td>
                <td>{n.lag ?? "—"}</td>
                <td>
                  {n.calls} / {n.errors}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted" data-testid="chain-source">
        {chain.network}; as seen by {chain.source === "scanner" ? "the scanning worker" : "this process"}
      </p>
    </section>
  );
}
