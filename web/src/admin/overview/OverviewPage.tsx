import { useEffect } from "react";
import type { AdminChainStatus, AlertList, DailyRevenue, IncidentList, Stats } from "../../api-types.js";
import { api } from "../api.js";
import { useApi } from "../useApi.js";
import { AddressPoolPanel } from "../wallet/AddressPoolPanel.js";
import { ChainCurrencyStats } from "./ChainCurrencyStats.js";
import { ChainPanel } from "./ChainPanel.js";
import { DepositStats } from "./DepositStats.js";
import { FailingWebhooks } from "./FailingWebhooks.js";
import { FiringAlerts } from "./FiringAlerts.js";
import { IncidentsPanel } from "./IncidentsPanel.js";
import { RecentDeposits } from "./RecentDeposits.js";
import { RevenueChart } from "./RevenueChart.js";
import { StatsCard } from "./StatsCard.js";

/** The overview reloads itself this often: alerts and node state change without the operator acting. */
const REFRESH_MS = 5_000;

async function loadOverview() {
  const [stats, daily, incidents, alerts, chain] = await Promise.all([
    api.get<Stats>("/stats"),
    api.get<DailyRevenue[]>("/stats/daily"),
    api.get<IncidentList>("/incidents"),
    api.get<AlertList>("/alerts"),
    api.get<AdminChainStatus>("/chain"),
  ]);
  return { stats, daily, incidents, alerts, chain };
}

/** The dashboard's first page: failing webhooks, alerts, stats, deposits, the address pool, the chain, revenue, incidents. */
export function OverviewPage() {
  const overview = useApi(loadOverview, "overview");
  const { reload } = overview;
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload]);
  if (overview.state === "loading") return <p>Loading…</p>;
  if (overview.state === "error") return <p className="error">{overview.message}</p>;
  const { stats, daily, incidents, alerts, chain } = overview.data;
  return (
    <>
      <h1>Overview</h1>
      <FailingWebhooks failing={incidents.failing_webhooks} />
      <FiringAlerts firing={alerts.firing} />
      <div className="grid">
        <StatsCard title="Today" block={stats.today} testId="stats-today" currencies={stats.currencies} />
        <StatsCard title="Last 7 days" block={stats.week} testId="stats-week" currencies={stats.currencies} />
        <StatsCard title="All time" block={stats.total} testId="stats-total" currencies={stats.currencies} />
        <DepositStats deposits={stats.deposits} />
        <RecentDeposits />
        <AddressPoolPanel pool={stats.address_pool} pools={stats.address_pools} />
      </div>
      <ChainCurrencyStats rows={stats.by_chain_currency} />
      <ChainPanel chain={chain} />
      <RevenueChart daily={daily} currencies={stats.currencies} />
      <IncidentsPanel incidents={incidents} />
    </>
  );
}
