import type { AlertView } from "../../api-types.js";
import { formatTime } from "../format.js";

/**
 * Operator alerts firing now (GET /alerts): the overview reloads them every few seconds, so an
 * alert shows up and clears without a page reload.
 */
export function FiringAlerts({ firing }: { firing: AlertView[] }) {
  return (
    <section className="panel wide">
      <h2>Alerts firing</h2>
      {firing.length === 0 ? (
        <p className="muted" data-testid="no-alerts">
          No alert is firing.
        </p>
      ) : (
        <ul className="alerts" data-testid="alerts-firing">
          {firing.map((a) => (
            <li key={a.id} data-testid={`alert-${a.alert}`} className={`alert-${a.severity}`}>
              <span className={`badge ${a.severity === "critical" ? "bad" : "warn"}`}>{a.severity}</span>{" "}
              <strong>{a.alert}</strong> <span className="muted">since {formatTime(a.fired_at)}</span>
              <div>{a.text}</div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
