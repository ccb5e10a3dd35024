import { useEffect, useRef, useState, type FormEvent } from "react";
import { useQrCode } from "../qr.js";
import { api, ApiError, type MerchantSummary } from "./api.js";
import { formatTime, shortId, trimAmount } from "./format.js";
import { useCan, useMe } from "./me.js";
import {
  DECIDABLE,
  DECISION_PERMISSION,
  decisionErrorText,
  type Decision,
  type Payout,
  type PayoutDetail,
  type PayoutFloat,
  type PayoutStatus,
} from "./payouts-api.js";
import { Link, navigate } from "./router.js";
import { errorMessage, useApi } from "./useApi.js";

/** The tabs of the Payouts page (DESIGN.md 14) and the statuses each lists. */
const TABS = [
  { id: "queue", label: "Approval queue", statuses: ["pending_approval"] },
  { id: "flight", label: "In flight", statuses: ["approved", "sending"] },
  { id: "completed", label: "Completed", statuses: ["completed"] },
  { id: "failed", label: "Failed", statuses: ["failed"] },
  { id: "closed", label: "Rejected / cancelled", statuses: ["rejected", "cancelled"] },
] as const satisfies ReadonlyArray<{ id: string; label: string; statuses: readonly PayoutStatus[] }>;
type TabId = (typeof TABS)[number]["id"];

interface PayoutPage {
  data: Payout[];
  next_cursor: string | null;
}
const pageOf = (statuses: readonly PayoutStatus[], cursor?: string | null) =>
  api.get<PayoutPage>(
    `/payouts?limit=100&status=${statuses.join(",")}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
  );
const listOf = (statuses: readonly PayoutStatus[]) => pageOf(statuses).then((r) => r.data);

export function StatusBadge({ status }: { status: string }) {
  const tone =
    status === "completed"
      ? "ok"
      : status === "failed" || status === "rejected" || status === "cancelled"
        ? "bad"
        : "warn";
  return (
    <span className={`badge ${tone}`} data-testid="payout-status">
      {status}
    </span>
  );
}

/** Approve, reject or cancel, each in an in-page dialog. Hidden when the role may not. */
export function PayoutActions({ payout, onDone }: { payout: Payout; onDone: () => void }) {
  const can = useCan();
  const [open, setOpen] = useState<Decision | null>(null);
  const allowed = (["approve", "reject", "cancel"] as const).filter(
    (decision) => can(DECISION_PERMISSION[decision]) && DECIDABLE[decision].includes(payout.status),
  );
  if (allowed.length === 0) return null;
  return (
    <>
      {allowed.map((decision) => (
        <button
          key={decision}
          type="button"
          data-testid={`${decision}-payout`}
          onClick={() => setOpen(decision)}
        >
          {decision === "approve" ? "Approve" : decision === "reject" ? "Reject" : "Cancel"}
        </button>
      ))}
      {open && (
        <DecisionDialog
          payout={payout}
          decision={open}
          onClose={() => setOpen(null)}
          onDone={() => {
            setOpen(null);
            onDone();
          }}
        />
      )}
    </>
  );
}

const DECISION_TEXT: Record<Decision, { title: string; button: string }> = {
  approve: { title: "Approve", button: "Approve" },
  reject: { title: "Reject", button: "Reject" },
  cancel: { title: "Cancel", button: "Cancel it" },
};

/**
 * A modal <dialog>: approve asks an enrolled operator for a fresh TOTP code (DESIGN.md 12 step-up);
 * reject needs a reason; cancel takes one. The server's refusal is shown with its code.
 */
function DecisionDialog({
  payout,
  decision,
  onClose,
  onDone,
}: {
  payout: Payout;
  decision: Decision;
  onClose: () => void;
  onDone: () => void;
}) {
  const me = useMe();
  const ref = useRef<HTMLDialogElement>(null);
  const [code, setCode] = useState("");
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The code field shows for an enrolled operator, and whenever the server asks for one (an
  // operator who enrolled in another tab since this page loaded).
  const [askCode, setAskCode] = useState(decision === "approve" && me.totp_enabled);
  const needsReason = decision === "reject";
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (needsReason && reason.trim() === "") {
      setError("Give a reason: it is kept with it and in the audit log.");
      return;
    }
    setBusy(true);
    try {
      await api.post(`/payouts/${payout.id}/${decision}`, {
        ...(reason.trim() ? { reason: reason.trim() } : {}),
        ...(askCode ? { totp_code: code.trim() } : {}),
      });
      onDone();
    } catch (caught) {
      if (caught instanceof ApiError && caught.code === "TOTP_REQUIRED") {
        // The server's words: a fresh code is needed, or (ADMIN_REQUIRE_2FA) enrol first.
        setAskCode(true);
        setError(`${caught.message} (${caught.code})`);
      } else {
        setError(
          caught instanceof ApiError ? decisionErrorText(caught.code, caught.message) : errorMessage(caught),
        );
      }
      setCode("");
    } finally {
      setBusy(false);
    }
  };
  const titleId = `decision-title-${payout.id}`;
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      data-testid="decision-dialog"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <form className="stack" onSubmit={(event) => void submit(event)}>
        <h2 id={titleId}>
          {DECISION_TEXT[decision].title} {payout.kind} of {trimAmount(payout.amount)} USDT
        </h2>
        <p className="muted">
          {payout.address ? (
            <>
              To <span className="mono">{payout.address}</span>
            </>
          ) : (
            "No address yet: the payer has not claimed it."
          )}
          <br />
          Created by {payout.created_by} · {formatTime(payout.created_at)}
        </p>
        {askCode && (
          <label>
            Code from your authenticator app
            <input
              inputMode="numeric"
              autoComplete="one-time-code"
              value={code}
              onChange={(event) => setCode(event.target.value)}
              data-testid="decision-totp"
              autoFocus
              required
            />
          </label>
        )}
        {decision !== "approve" && (
          <label>
            Reason{needsReason ? "" : " (optional)"}
            <input
              value={reason}
              onChange={(event) => setReason(event.target.value)}
              maxLength={500}
              data-testid="decision-reason"
              autoFocus
            />
          </label>
        )}
        {error && (
          <p className="error" role="alert" data-testid="decision-error">
            {error}
          </p>
        )}
        <p className="actions">
          <button type="submit" disabled={busy} data-testid="decision-confirm">
            {DECISION_TEXT[decision].button}
          </button>
          <button type="button" onClick={onClose} data-testid="decision-close">
            Close
          </button>
        </p>
      </form>
    </dialog>
  );
}

function PayoutTable({
  rows,
  merchants,
  testId,
  onChanged,
  empty,
}: {
  rows: Payout[];
  merchants: Map<string, string>;
  testId: string;
  onChanged: () => void;
  empty: string;
}) {
  if (rows.length === 0)
    return (
      <p className="muted" data-testid={`${testId}-empty`}>
        {empty}
      </p>
    );
  return (
    <table data-testid={testId}>
      <thead>
        <tr>
          <th>Created</th>
          <th>Kind</th>
          <th>Merchant</th>
          <th className="num">Amount</th>
          <th>To</th>
          <th>Status</th>
          <th>Created by</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {rows.map((payout) => (
          <tr key={payout.id} data-testid={`payout-${payout.id}`}>
            <td className="nowrap">{formatTime(payout.created_at)}</td>
            <td>{payout.kind}</td>
            <td>{merchants.get(payout.merchant_id) ?? shortId(payout.merchant_id)}</td>
            <td className="num">{trimAmount(payout.amount)} USDT</td>
            <td className="mono">{payout.address ?? "—"}</td>
            <td>
              <StatusBadge status={payout.status} />
              {payout.last_error && <div className="warning">{payout.last_error}</div>}
            </td>
            <td>{payout.created_by}</td>
            <td>
              <div className="row-actions">
                <Link to={`/admin/payouts/${payout.id}`} testId="payout-link">
                  Details
                </Link>
                <PayoutActions payout={payout} onDone={onChanged} />
              </div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The hot wallet's float: balances, what approved payouts need, the low warning, top-up QR. */
function FloatPanel({ round }: { round: number }) {
  const float = useApi(() => api.get<PayoutFloat>("/payouts/float"), `float-${round}`);
  const qr = useQrCode(float.state === "ok" ? float.data.address : null);
  if (float.state === "loading") return <section className="panel">Loading the float…</section>;
  if (float.state === "error") return <p className="error">{float.message}</p>;
  const f = float.data;
  return (
    <section className="panel float" data-testid="float" aria-labelledby="float-title">
      <h2 id="float-title">Hot wallet float</h2>
      {f.is_low && (
        <p className="error" role="alert" data-testid="float-low">
          The float is too small: {trimAmount(f.shortfall)} USDT short for {f.approved.count} approved{" "}
          {f.approved.count === 1 ? "payout" : "payouts"}
          {f.waiting_for_float > 0 ? ` (${f.waiting_for_float} waiting)` : ""}. Top up the hot wallet.
        </p>
      )}
      {f.balance_error && <p className="error">Balances not current: {f.balance_error}</p>}
      <div className="float-body">
        <dl data-testid="float-figures">
          <dt>USDT</dt>
          <dd data-testid="float-usdt">
            {f.usdt_balance === null ? "—" : `${trimAmount(f.usdt_balance)} USDT`}
          </dd>
          <dt>TRX</dt>
          <dd data-testid="float-trx">{f.trx_balance === null ? "—" : `${trimAmount(f.trx_balance)} TRX`}</dd>
          <dt>Approved, to send</dt>
          <dd data-testid="float-needed">
            {trimAmount(f.approved.amount)} USDT ({f.approved.count})
          </dd>
          <dt>In flight</dt>
          <dd>
            {trimAmount(f.in_flight.amount)} USDT ({f.in_flight.count})
          </dd>
          <dt>Pending approval</dt>
          <dd>
            {trimAmount(f.pending_approval.amount)} USDT ({f.pending_approval.count})
          </dd>
        </dl>
        {f.address && (
          <div className="float-topup">
            <span className="field-label">Top-up address (USDT TRC20 and TRX)</span>
            <code className="mono block" data-testid="float-address">
              {f.address}
            </code>
            {qr && (
              <img
                src={qr}
                alt="QR code of the hot wallet's address"
                data-testid="float-qr"
                width={140}
                height={140}
              />
            )}
          </div>
        )}
      </div>
    </section>
  );
}

export function PayoutsPage({ query }: { query: URLSearchParams }) {
  const requested = query.get("tab");
  const tab: TabId = TABS.some((t) => t.id === requested) ? (requested as TabId) : "queue";
  const current = TABS.find((t) => t.id === tab) ?? TABS[0];
  const [round, setRound] = useState(0);
  const reload = () => setRound((n) => n + 1);
  const merchants = useApi(() => api.get<{ data: MerchantSummary[] }>("/merchants"), "merchants");
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
        Refunds and payouts leave the hot wallet only after a second operator approves them (DESIGN.md 14).{" "}
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
            empty={tab === "queue" ? "Nothing waits for approval." : "None."}
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
                empty="None."
              />
            )}
            {awaiting.state === "error" && <p className="error">{awaiting.message}</p>}
          </>
        )}
      </section>
    </>
  );
}

export function PayoutDetailPage({ id }: { id: string }) {
  const can = useCan();
  const detail = useApi(() => api.get<PayoutDetail>(`/payouts/${encodeURIComponent(id)}`), id);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  if (detail.state === "loading") return <p>Loading…</p>;
  if (detail.state === "error") return <p className="error">{detail.message}</p>;
  const { payout, events, transactions } = detail.data;
  const final = payout.status === "completed" || payout.status === "failed";
  const retry = async () => {
    setMessage(null);
    try {
      await api.post(`/payouts/${payout.id}/retry-webhook`);
      setMessage({ ok: true, text: "Webhook scheduled." });
    } catch (caught) {
      setMessage({ ok: false, text: errorMessage(caught) });
    }
  };
  return (
    <>
      <h1>
        {payout.kind === "refund" ? "Refund" : "Payout"} {payout.external_id ?? shortId(payout.id)}{" "}
        <StatusBadge status={payout.status} />
      </h1>
      <p className="muted">
        {trimAmount(payout.amount)} USDT · created by {payout.created_by} {formatTime(payout.created_at)}
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
      {message && (
        <p className={message.ok ? "notice-ok" : "error"} role="status">
          {message.text}
        </p>
      )}
      <section className="panel wide">
        <h2>Details</h2>
        <dl className="fields" data-testid="payout-fields">
          {(
            [
              ["id", payout.id],
              ["kind", payout.kind],
              ["status", payout.status],
              ["amount", `${trimAmount(payout.amount)} USDT`],
              ["address", payout.address],
              ["external_id", payout.external_id],
              ["reason", payout.reason],
              ["tx_hash", payout.tx_hash],
              ["trx_burnt", payout.trx_burnt === null ? null : `${trimAmount(payout.trx_burnt)} TRX`],
              ["auto_approved", String(payout.auto_approved)],
              ["created_by", payout.created_by],
              ["decided_by", payout.decided_by],
              ["approved_at", payout.approved_at && formatTime(payout.approved_at)],
              ["completed_at", payout.completed_at && formatTime(payout.completed_at)],
              ["failed_at", payout.failed_at && formatTime(payout.failed_at)],
              ["last_error", payout.last_error],
              ["callback_url", payout.callback_url],
            ] as const
          ).map(([name, value]) => (
            <div key={name}>
              <dt>{name}</dt>
              <dd
                className={name === "address" || name === "tx_hash" ? "mono" : undefined}
                data-testid={`field-${name}`}
              >
                {value ?? "—"}
              </dd>
            </div>
          ))}
        </dl>
        {payout.tx_explorer_url && (
          <a href={payout.tx_explorer_url} target="_blank" rel="noopener noreferrer">
            View the transaction
          </a>
        )}
      </section>
      <section className="panel wide">
        <h2>Transactions</h2>
        {transactions.length === 0 ? (
          <p className="muted">None signed yet.</p>
        ) : (
          <table data-testid="payout-transactions">
            <thead>
              <tr>
                <th>Attempt</th>
                <th>Tx hash</th>
                <th>State</th>
                <th>Mode</th>
                <th>Result</th>
                <th className="num">TRX burnt</th>
                <th className="num">Energy</th>
                <th>Signed</th>
                <th>Landed</th>
              </tr>
            </thead>
            <tbody>
              {transactions.map((t) => (
                <tr key={t.tx_hash}>
                  <td>{t.attempt}</td>
                  <td className="mono">{t.tx_hash}</td>
                  <td>{t.state}</td>
                  <td>{t.mode}</td>
                  <td>{t.result ?? "—"}</td>
                  <td className="num">{t.fee_trx === null ? "—" : trimAmount(t.fee_trx)}</td>
                  <td className="num">{t.energy_used ?? "—"}</td>
                  <td>{formatTime(t.created_at)}</td>
                  <td>{formatTime(t.landed_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="panel wide">
        <h2>Events</h2>
        <ol className="timeline" data-testid="payout-events">
          {events.map((event) => (
            <li key={event.id}>
              <span className="muted">{formatTime(event.created_at)}</span>{" "}
              <strong>{event.event_type}</strong> {event.from_status ?? "—"} → {event.to_status ?? "—"}
              {event.actor?.label ? ` by ${event.actor.label}` : ""}{" "}
              {Object.keys(event.payload).length > 0 && (
                <code className="payload">{JSON.stringify(event.payload)}</code>
              )}
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
