import type { PayoutActionState, PayoutDetail } from "../../api-types.js";
import { api } from "../api.js";
import { formatUsdt, shortId } from "../format.js";
import { actorLabel, statusLabel } from "../labels.js";
import { When } from "../ui/When.js";
import { Link } from "../router.js";
import { EventTimeline } from "../ui/EventTimeline.js";
import { FieldList } from "../ui/FieldList.js";
import { OutcomeLine, useOutcome } from "../ui/Outcome.js";
import { useApi } from "../useApi.js";
import { ClaimLinkPanel } from "./ClaimLinkPanel.js";
import { PayoutActions } from "./PayoutActions.js";
import { PayoutStatusBadge } from "./PayoutStatusBadge.js";
import { PayoutTransactions } from "./PayoutTransactions.js";

const ROLE_REASON = "Your role does not allow this.";

const ACTION_LABEL: Record<PayoutActionState["action"], string> = {
  approve: "Approve",
  reject: "Reject",
  cancel: "Cancel",
  retry_webhook: "Retry webhook",
  reissue_claim_link: "New claim link",
};

/** "HTTP 500: internal error", the connection error alone, or "Not tried yet". */
function webhookError(webhook: NonNullable<PayoutDetail["webhook"]>): string {
  const status = webhook.last_status_code === null ? null : `HTTP ${webhook.last_status_code}`;
  if (status && webhook.last_error)
    return webhook.last_error.includes(status) ? webhook.last_error : `${status}: ${webhook.last_error}`;
  return status ?? webhook.last_error ?? (webhook.attempts === 0 ? "Not tried yet" : "No reply");
}

/** One refund or payout: its fields, decisions, claim link, webhook, transactions and events. */
export function PayoutDetailPage({ id }: { id: string }) {
  const detail = useApi(() => api.get<PayoutDetail>(`/payouts/${encodeURIComponent(id)}`), id);
  const { outcome, report } = useOutcome();
  if (detail.state === "loading") return <p>Loading…</p>;
  if (detail.state === "error") return <p className="error">{detail.message}</p>;
  const { payout, events, transactions, actions, webhook } = detail.data;
  const retryAllowed = actions.some((a) => a.action === "retry_webhook" && a.allowed);
  // Why the rest is not offered; what only the role forbids is simply not shown.
  const unavailable = actions.filter(
    (a) => !a.allowed && a.reason !== null && a.reason !== ROLE_REASON && a.action !== "reissue_claim_link",
  );
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
        <PayoutActions payout={payout} actions={actions} onDone={detail.reload} />
        {retryAllowed && (
          <button type="button" data-testid="payout-retry-webhook" onClick={() => void retry()}>
            Retry webhook
          </button>
        )}
        <Link to="/admin/payouts">Back to payouts</Link>
      </p>
      {unavailable.length > 0 && (
        <ul className="why-not" data-testid="payout-unavailable">
          {unavailable.map((a) => (
            <li key={a.action} data-action={a.action}>
              {ACTION_LABEL[a.action]}: {a.reason}
            </li>
          ))}
        </ul>
      )}
      <OutcomeLine outcome={outcome} />
      <ClaimLinkPanel detail={detail.data} onDone={detail.reload} />
      {webhook && webhook.status !== "delivered" && webhook.attempts > 0 && (
        <section className="panel wide attention" data-testid="payout-webhook-failing">
          <h2>Webhook failing</h2>
          <p>
            The merchant did not accept the webhook after {webhook.attempts} of {webhook.max_attempts}{" "}
            attempts: <strong>{webhookError(webhook)}</strong>.{" "}
            {webhook.next_attempt_at ? (
              <>
                Next try <When at={webhook.next_attempt_at} />.
              </>
            ) : (
              "No try is left: retry it once the merchant's endpoint is fixed."
            )}
          </p>
        </section>
      )}
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
            // What the chain charged: TRON's burnt TRX, or an EVM chain's gas in its native coin.
            ...(payout.chain === "tron"
              ? { trx_burnt: payout.trx_burnt === null ? null : formatUsdt(payout.trx_burnt, "TRX") }
              : {
                  gas_cost: payout.gas_cost === null ? null : `${payout.gas_cost} ${payout.native_symbol}`,
                  gas_cost_wei: payout.gas_cost_wei,
                }),
            auto_approved: payout.auto_approved,
            created_by: payout.created_by,
            decided_by: payout.decided_by,
            approved_at: payout.approved_at,
            completed_at: payout.completed_at,
            failed_at: payout.failed_at,
            tx_explorer_url: payout.tx_explorer_url,
            last_error: payout.last_error,
            callback_url: payout.callback_url,
            webhook:
              webhook === null ? null : webhook.status === "delivered" ? "Delivered" : webhookError(webhook),
          }}
        />
      </section>
      <PayoutTransactions transactions={transactions} chain={payout.chain} symbol={payout.native_symbol} />
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
