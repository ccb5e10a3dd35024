import type { StrayList } from "../../api-types.js";
import { api } from "../api.js";
import { useApi } from "../useApi.js";
import { StrayTable } from "./StrayTable.js";

/**
 * Stray transfers (DESIGN.md 4 and 13): USDT that reached one of our addresses while no order held
 * it. The list shows unresolved ones first; a stray's page shows its address's history and the
 * actions (attach to an order, dismiss), each with a reason.
 */
export function StrayTransfersPage() {
  const list = useApi(() => api.get<StrayList>("/stray-transfers?limit=100"), "strays");
  if (list.state === "loading") return <p>Loading…</p>;
  if (list.state === "error") return <p className="error">{list.message}</p>;
  return (
    <>
      <h1>Stray transfers</h1>
      <p className="muted">
        Transfers to addresses no order held. Their balance is swept to the cold wallet by the address&apos;s
        own settlement; attach one to the order it was meant for, refund it, or dismiss it with a reason.
      </p>
      {list.data.data.length === 0 ? (
        <p className="muted" data-testid="no-strays">
          No stray transfers.
        </p>
      ) : (
        <StrayTable strays={list.data.data} testId="strays" />
      )}
    </>
  );
}
