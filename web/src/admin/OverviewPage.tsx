import { useEffect } from "react";
import {
  api,
  type AdminChainStatus,
  type AlertList,
  type DepositSummary,
  type Incident,
  type Stats,
  type StatsBlock,
  type StrayTransferView,
} from "./api.js";
import { Link } from "./router.js";
import { formatTime, trimAmount } from "./format.js";
import { ChainPanel, FiringAlerts } from "./OpsPanels.js";
import { RevenueChart, type DailyRevenue } from "./RevenueChart.js";
import { useApi } from "./useApi.js";
import { RecentDeposits } from "./DepositAddressesPage.js";

/** The overview reloads itself this often: alerts and node state change without the operator acting. */
const REFRESH_MS = 5_000;

interface Overview {
  stats: Stats;
  daily: DailyRevenue[];
  incidents: Incident[];
  strays: StrayTransferView[];
  disabledDeposits: DepositSummary[];
  alerts: AlertList;
  chain: AdminChainStatus;
}

async function loadOverview(): Promise<Overview> {
  const [stats, daily, incidents, alerts, chain] = await Promise.all([
    api.get<Stats>("/stats"),
    api.get<DailyRevenue[]>("/stats/daily"),
    api.get<{
      data: Incident[];
      stray_transfers?: StrayTransferView[];
      deposits_to_disabled_addresses?: DepositSummary[];
    }>("/incidents"),
    api.get<AlertList>("/alerts"),
    api.get<AdminChainStatus>("/chain"),
  ]);
  return {
    stats,
    daily,
    incidents: incidents.data,
    strays: incidents.stray_transfers ?? [],
    disabledDeposits: incidents.deposits_to_disabled_addresses ?? [],
    alerts,
    chain,
  };
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

export function OverviewPage() {
  const overview = useApi(loadOverview, "overview");
  const { reload } = overview;
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  if (overview.state === "loading") return <p>Loading…</p>;
  if (overview.state === "error") return <p className="error">{overview.message}</p>;
  const { stats, daily, incidents, strays, disabledDeposits, alerts, chain } = overview.data;
  return (
    <>
      <h1>Overview</h1>
      <FiringAlerts firing={alerts.firing} />
      <div className="grid">
        <StatsCard title="Today" block={stats.today} testId="stats-today" />
        <StatsCard title="Last 7 days" block={stats.week} testId="stats-week" />
        <StatsCard title="All time" block={stats.total} testId="stats-total" />
        <section className="panel" data-testid="stats-deposits">
          <h2>Deposits to static addresses</h2>
          <dl>
            <dt>Today</dt>
            <dd data-testid="stats-deposits-today">
              {stats.deposits.today.deposit_count} · {trimAmount(stats.deposits.today.total_received)} USDT
            </dd>
            <dt>Last 7 days</dt>
            <dd>
              {stats.deposits.week.deposit_count} · {trimAmount(stats.deposits.week.total_received)} USDT
            </dd>
            <dt>All time</dt>
            <dd data-testid="stats-deposits-total">
              {stats.deposits.total.deposit_count} · {trimAmount(stats.deposits.total.total_received)} USDT
            </dd>
          </dl>
        </section>
        <RecentDeposits />
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
      <ChainPanel chain={chain} />
      <RevenueChart daily={daily} />
      <section className="panel wide">
        <h2>Incidents</h2>
        {incidents.length === 0 && strays.length === 0 && disabledDeposits.length === 0 ? (
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
              {strays.map((stray) => (
                <tr key={stray.id} data-testid="stray-incident">
                  <td>{formatTime(stray.created_at)}</td>
                  <td>Stray transfer</td>
                  <td>—</td>
                  <td>
                    <Link to={`/admin/stray-transfers/${stray.id}`}>
                      {trimAmount(stray.amount)} USDT to {stray.address}
                    </Link>
                  </td>
                  <td>no order held the address</td>
                </tr>
              ))}
              {disabledDeposits.map((deposit) => (
                <tr key={deposit.id} data-testid="disabled-deposit-incident">
                  <td>{formatTime(deposit.detected_at)}</td>
                  <td>Deposit to a disabled address</td>
                  <td>—</td>
                  <td>
                    <Link to={`/admin/deposit-addresses/${deposit.deposit_address_id}`}>
                      {trimAmount(deposit.amount)} USDT from customer {deposit.customer_ref}
                    </Link>
                  </td>
                  <td>credited all the same ({deposit.status})</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
