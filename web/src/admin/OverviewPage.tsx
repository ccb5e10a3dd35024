import { toMicro } from "../checkout/amounts.js";
import { api, type Incident, type Stats, type StatsBlock } from "./api.js";
import { Link } from "./router.js";
import { formatTime, trimAmount } from "./format.js";
import { useApi } from "./useApi.js";

interface Overview {
  stats: Stats;
  daily: Array<{ date: string; total_received: string }>;
  incidents: Incident[];
}

async function loadOverview(): Promise<Overview> {
  const [stats, daily, incidents] = await Promise.all([
    api.get<Stats>("/stats"),
    api.get<Array<{ date: string; total_received: string }>>("/stats/daily"),
    api.get<{ data: Incident[] }>("/incidents"),
  ]);
  return { stats, daily, incidents: incidents.data };
}

function StatsCard({ title, block, testId }: { title: string; block: StatsBlock; testId: string }) {
  return (
    <section className="panel" data-testid={testId}>
      <h2>{title}</h2>
      <p className="big">{trimAmount(block.total_received)} USDT</p>
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

/** Bars scaled in integer micro-USDT: no float ever holds an amount, only the bar's width does. */
function DailyBars({ daily }: { daily: Overview["daily"] }) {
  const values = daily.map((day) => toMicro(day.total_received) ?? 0n);
  const max = values.reduce((a, b) => (b > a ? b : a), 0n);
  return (
    <section className="panel wide">
      <h2>Received, last 7 days (UTC)</h2>
      <ol className="bars" data-testid="daily">
        {daily.map((day, i) => {
          const value = values[i] ?? 0n;
          const percent = max === 0n ? 0 : Number((value * 100n) / max);
          return (
            <li key={day.date}>
              <span className="bar-date">{day.date.slice(5)}</span>
              <span className="bar" style={{ width: `${Math.max(percent, value > 0n ? 1 : 0)}%` }} />
              <span className="bar-value">{trimAmount(day.total_received)}</span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

export function OverviewPage() {
  const overview = useApi(loadOverview, "overview");
  if (overview.state === "loading") return <p>Loading…</p>;
  if (overview.state === "error") return <p className="error">{overview.message}</p>;
  const { stats, daily, incidents } = overview.data;
  return (
    <>
      <h1>Overview</h1>
      <div className="grid">
        <StatsCard title="Today" block={stats.today} testId="stats-today" />
        <StatsCard title="Last 7 days" block={stats.week} testId="stats-week" />
        <StatsCard title="All time" block={stats.total} testId="stats-total" />
        <section className="panel">
          <h2>Address pool</h2>
          <dl>
            <dt>Free</dt>
            <dd>{stats.address_pool.free}</dd>
            <dt>Allocated</dt>
            <dd>{stats.address_pool.allocated}</dd>
            <dt>Total</dt>
            <dd>{stats.address_pool.total}</dd>
          </dl>
        </section>
      </div>
      <DailyBars daily={daily} />
      <section className="panel wide">
        <h2>Incidents</h2>
        {incidents.length === 0 ? (
          <p className="muted" data-testid="no-incidents">
            No failed webhooks or sweeps.
          </p>
        ) : (
          <table data-testid="incidents">
            <thead>
              <tr>
                <th>When</th>
                <th>What</th>
                <th>Merchant</th>
                <th>Order</th>
                <th>Reason</th>
              </tr>
            </thead>
            <tbody>
              {incidents.map((incident) => (
                <tr key={incident.id}>
                  <td>{formatTime(incident.created_at)}</td>
                  <td>{incident.event_type === "sweep_failed" ? "Sweep failed" : "Webhook failed"}</td>
                  <td>{incident.merchant_name}</td>
                  <td>
                    <Link to={`/admin/orders/${incident.order_id}`}>{incident.external_id}</Link>
                  </td>
                  <td>{String(incident.payload.reason ?? "")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
