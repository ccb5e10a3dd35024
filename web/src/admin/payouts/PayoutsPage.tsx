import { useState } from "react";
import type { MerchantList, Payout, PayoutList, PayoutStatus } from "../../api-types.js";
import { api } from "../api.js";
import { navigate } from "../router.js";
import { errorMessage, useApi } from "../useApi.js";
import { FloatPanel } from "./FloatPanel.js";
import { PayoutTable } from "./PayoutTable.js";

/** The tabs of the Payouts page (DESIGN.md 14) and the statuses each lists. */
const TABS = [
  { id: "queue", label: "Approval queue", statuses: ["pending_approval"] },
  { id: "flight", label: "In flight", statuses: ["approved", "sending"] },
  { id: "completed", label: "Completed", statuses: ["completed"] },
  { id: "failed", label: "Failed", statuses: ["failed"] },
  { id: "closed", label: "Rejected / cancelled", statuses: ["rejected", "cancelled"] },
] as const satisfies ReadonlyArray<{ id: string; label: string; statuses: readonly PayoutStatus[] }>;
type TabId = (typeof TABS)[number]["id"];

const pageOf = (statuses: readonly PayoutStatus[], cursor?: string | null) =>
  api.get<PayoutList>(
    `/payouts?limit=100&status=${statuses.join(",")}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
  );
const listOf = (statuses: readonly PayoutStatus[]) => pageOf(statuses).then((r) => r.data);

export function PayoutsPage({ query }: { query: URLSearchParams }) {
  const requested = query.get("tab");
  const tab: TabId = TABS.some((t) => t.id === requested) ? (requested as TabId) : "queue";
  const current = TABS.find((t) => t.id === tab) ?? TABS[0];
  const [round, setRound] = useState(0);
  const reload = () => setRound((n) => n + 1);
  const merchants = useApi(() => api.get<MerchantList>("/merchants"), "merchants");
  const names = new Map(
    merchants.state === "ok" ? merchants.data.data.map((m) => [m.id, m.name] as const) : [],
  );
  const list = useApi(() => pageOf(current.statuses), `${tab}-${round}`);
  // Further pages (100 each, newest first), appended by "Load more"; reset with the list.
  const [more, setMore] = useState<{ key: string; rows: Payout[]; cursor: string | null } | null>(null);
  const listKey = `${tab}-${round}`;
  const extra = more?.key === listKey ? more : null;
  const cursor = extra ? extra.cursor : list.state === "ok" ? list.data.next_cursor : null;
  const [moreError, setMoreError] = useState<string | null>(null);
  const loadMore = async () => {
    setMoreError(null);
    try {
      const next = await pageOf(current.statuses, cursor);
      setMore({ key: listKey, rows: [...(extra?.rows ?? []), ...next.data], cursor: next.next_cursor });
    } catch (caught) {
      setMoreError(errorMessage(caught));
    }
  };
  const awaiting = useApi(
    () => (tab === "queue" ? listOf(["awaiting_address"]) : Promise.resolve([])),
    `awaiting-${tab}-${round}`,
  );

  return (
    <>
      <h1>Payouts</h1>
      <p className="muted">
        Refunds and payouts leave the hot wallet only after a second operator approves them.{" "}
        <button type="button" onClick={reload} data-testid="payouts-refresh">
          Refresh
        </button>
      </p>
      <FloatPanel round={round} />
      <div role="tablist" aria-label="Payouts by state" className="tabs">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`payouts-tab-${t.id}`}
            aria-selected={t.id === tab}
            aria-controls="payouts-tabpanel"
            className={t.id === tab ? "active" : undefined}
            data-testid={`tab-${t.id}`}
            onClick={() => navigate(t.id === "queue" ? "/admin/payouts" : `/admin/payouts?tab=${t.id}`)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <section
        role="tabpanel"
        id="payouts-tabpanel"
        aria-labelledby={`payouts-tab-${tab}`}
        data-testid={`panel-${tab}`}
      >
        {list.state === "loading" && <p>Loading…</p>}
        {list.state === "error" && <p className="error">{list.message}</p>}
        {list.state === "ok" && (
          <PayoutTable
            rows={[...list.data.data, ...(extra?.rows ?? [])]}
            merchants={names}
            testId="payouts"
            onChanged={reload}
            empty={
              tab === "queue"
                ? "Nothing waits for approval. New refunds and payouts appear here for a second operator to approve."
                : "No refunds or payouts in this state."
            }
          />
        )}
        {list.state === "ok" && cursor && (
          <p className="pager">
            <button type="button" onClick={() => void loadMore()} data-testid="payouts-more">
              Load more
            </button>
          </p>
        )}
        {moreError && <p className="error">{moreError}</p>}
        {tab === "queue" && (
          <>
            <h2>Waiting for the payer&apos;s address</h2>
            <p className="muted">
              Refunds created without an address: they join the queue once the payer gives one on the claim
              page.
            </p>
            {awaiting.state === "ok" && (
              <PayoutTable
                rows={awaiting.data}
                merchants={names}
                testId="awaiting-address"
                onChanged={reload}
                empty="No refund waits for a payer's address."
              />
            )}
            {awaiting.state === "error" && <p className="error">{awaiting.message}</p>}
          </>
        )}
      </section>
    </>
  );
}
