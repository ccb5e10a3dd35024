import type { AdminChainStatus } from "../../api-types.js";
import { formatTime } from "../format.js";

const STATE_LABEL = {
  healthy: "healthy",
  failing: "set aside (errors)",
  lagging: "set aside (behind)",
} as const;

/**
 * The scanner's lag and every node of TRON_NODE_URL as the scanner sees it (GET /chain); the
 * overview reloads it every few seconds.
 */
export function ChainPanel({ chain }: { chain: AdminChainStatus }) {
  const lag = chain.scanner_lag_blocks;
  const behind = lag !== null && lag > chain.scanner_lag_alert_blocks;
  return (
    <section className="panel wide">
      <h2>Chain</h2>
      <p data-testid="scanner-lag" data-lag={lag ?? ""} className={behind ? "error" : undefined}>
        {lag === null
          ? "Scanner lag: unknown (no head or nothing scanned yet)"
          : `Scanner lag: ${lag} block${lag === 1 ? "" : "s"} behind the head`}{" "}
        <span className="muted">
          (head {chain.head ?? "—"}, scanned {chain.scanned ?? "—"}; alert above{" "}
          {chain.scanner_lag_alert_blocks})
        </span>
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
