import type { PayoutDetail } from "../../api-types.js";
import { api } from "../api.js";
import { formatUsdt, shortId } from "../format.js";
import { actorLabel, statusLabel } from "../labels.js";
import { When } from "../ui/When.js";
import { useCan } from "../me.js";
import { Link } from "../router.js";
import { EventTimeline } from "../ui/EventTimeline.js";
import { FieldList } from "../ui/FieldList.js";
import { OutcomeLine, useOutcome } from "../ui/Outcome.js";
import { useApi } from "../useApi.js";
import { PayoutActions } from "./PayoutActions.js";
import { PayoutStatusBadge } from "./PayoutStatusBadge.js";
import { PayoutTransactions } from "./PayoutTransactions.js";

/** One refund or payout: its fields, decisions, transactions and events. */
export function PayoutDetailPage({ id }: { id: string }) {
  const can = useCan();
  const detail = useApi(() => api.get<PayoutDetail>(`/payouts/${encodeURIComponent(id)}`), id);
  const { outcome, report } = useOutcome();
  if (detail.state === "loading") return <p>Loading…</p>;
  if (detail.state === "error") return <p className="error">{detail.message}</p>;
  const { payout, events, transactions } = detail.data;
  const final = payout.status === "completed" || payout.status === "failed";
  const retry = () =>
    report(async () => {
      await api.post(`/payouts/${payout.id}/retry-webhook`);
      return "Webhook scheduled.";
    });
  return (
    <>
      <h1>
        {payout.kind === "refund" ? "Refund" : "Payout"} {payout.external_id ?? shortId(payout.id)}{" "}
        <PayoutStatusBadge status={payout.status} />
      </h1>
      <p className="muted">
        {formatUsdt(payout.amount)} · created by {actorLabel(payout.created_by)}{" "}
        <When at={payout.created_at} />
        {payout.order_id && (
          <>
            {" "}
            · <Link to={`/admin/orders/${payout.order_id}`}>order</Link>
          </>
        )}
        {payout.stray_transfer_id && (
          <>
            {" "}
            · <Link to={`/admin/stray-transfers/${payout.stray_transfer_id}`}>stray transfer</Link>
          </>
        )}
      </p>
      <p className="actions">
        <PayoutActions payout={payout} onDone={detail.reload} />
        {final && payout.callback_url && can("payouts.retry_webhook") && (
          <button type="button" data-testid="payout-retry-webhook" onClick={() => void retry()}>
            Retry webhook
          </button>
        )}
        <Link to="/admin/payouts">Back to payouts</Link>
      </p>
      <OutcomeLine outcome={outcome} />
      <section className="panel wide">
        <h2>Details</h2>
        <FieldList
          testId="payout-fields"
          valueTestIds
          fields={{
            id: payout.id,
            kind: payout.kind === "refund" ? "Refund" : "Payout",
            status: payout.status,
            amount: formatUsdt(payout.amount),
            address: payout.address,
            external_id: payout.external_id,
            reason: payout.reason,
            tx_hash: payout.tx_hash,
            trx_burnt: payout.trx_burnt === null ? null : formatUsdt(payout.trx_burnt, "TRX"),
            auto_approved: payout.auto_approved,
            created_by: payout.created_by,
            decided_by: payout.decided_by,
            approved_at: payout.approved_at,
            completed_at: payout.completed_at,
            failed_at: payout.failed_at,
            tx_explorer_url: payout.tx_explorer_url,
            last_error: payout.last_error,
            callback_url: payout.callback_url,
          }}
        />
      </section>
      <PayoutTransactions transactions={transactions} />
      <EventTimeline
        events={events}
        testId="payout-events"
        hideEmptyPayload
        describe={(event) => {
          const by = event.actor?.label;
          const change =
            event.from_status && event.to_status
              ? `${statusLabel(event.from_status)} → ${statusLabel(event.to_status)}`
              : event.to_status
                ? statusLabel(event.to_status)
                : "";
          return `${change}${typeof by === "string" && by ? ` · by ${actorLabel(by)}` : ""}`;
        }}
      />
    </>
  );
}
