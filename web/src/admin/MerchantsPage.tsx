import { useState, type FormEvent } from "react";
import { api, type MerchantDetail, type MerchantSummary } from "./api.js";
import { Link } from "./router.js";
import { formatTime, trimAmount } from "./format.js";
import { errorMessage, useApi } from "./useApi.js";
import { askTotpCode, useCan, useMe } from "./me.js";

interface Created {
  name: string;
  api_key: string;
  webhook_secret?: string;
}

/** A key or secret shown once, with the warning that it cannot be shown again. */
function SecretOnce({ created, onClose }: { created: Created; onClose: () => void }) {
  return (
    <section className="panel notice" role="alert" data-testid="secret-once">
      <h2>API key of {created.name}</h2>
      <p>Copy it now: it is shown only once. Stablegate keeps only a hash of it.</p>
      <code className="mono block" data-testid="new-api-key">
        {created.api_key}
      </code>
      <button type="button" onClick={onClose}>
        Done
      </button>
    </section>
  );
}

function CreateMerchant({ onCreated }: { onCreated: (created: Created) => void }) {
  const [name, setName] = useState("");
  const [secret, setSecret] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const created = await api.post<Created>("/merchants", { name, webhook_secret: secret });
      setName("");
      setSecret("");
      onCreated(created);
    } catch (caught) {
      setError(errorMessage(caught));
    }
  };
  return (
    <form className="panel inline-form" onSubmit={(event) => void submit(event)}>
      <h2>New merchant</h2>
      <label>
        Name
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={255}
          data-testid="merchant-name"
        />
      </label>
      <label>
        Webhook secret (8-255 characters)
        <input
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          maxLength={255}
          autoComplete="off"
          data-testid="merchant-secret"
        />
      </label>
      <button type="submit" data-testid="create-merchant">
        Create
      </button>
      {error && (
        <p className="error" role="alert" data-testid="merchant-error">
          {error}
        </p>
      )}
    </form>
  );
}

export function MerchantsPage() {
  const merchants = useApi(() => api.get<{ data: MerchantSummary[] }>("/merchants"), "merchants");
  const me = useMe();
  const can = useCan();
  const [shown, setShown] = useState<Created | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const act = async (action: () => Promise<unknown>) => {
    setActionError(null);
    try {
      await action();
      merchants.reload();
    } catch (caught) {
      setActionError(errorMessage(caught));
    }
  };

  return (
    <>
      <h1>Merchants</h1>
      {shown && <SecretOnce created={shown} onClose={() => setShown(null)} />}
      {can("merchants.create") && (
        <CreateMerchant
          onCreated={(created) => {
            setShown(created);
            merchants.reload();
          }}
        />
      )}
      {actionError && (
        <p className="error" role="alert" data-testid="merchant-action-error">
          {actionError}
        </p>
      )}
      {merchants.state === "loading" && <p>Loading…</p>}
      {merchants.state === "error" && <p className="error">{merchants.message}</p>}
      {merchants.state === "ok" && (
        <table data-testid="merchants">
          <thead>
            <tr>
              <th>Name</th>
              <th>Key prefix</th>
              <th>Status</th>
              <th>Orders</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {merchants.data.data.map((m) => (
              <tr key={m.id} data-testid={`merchant-${m.name}`}>
                <td>
                  <Link to={`/admin/merchants/${m.id}`} testId="merchant-link">
                    {m.name}
                  </Link>{" "}
                  <Link to={`/admin/orders?merchant_id=${m.id}`}>(orders)</Link>
                </td>
                <td className="mono">{m.api_key_prefix}…</td>
                <td>
                  <span className={m.is_active ? "badge ok" : "badge bad"}>
                    {m.is_active ? "active" : "suspended"}
                  </span>
                </td>
                <td>{m.order_count}</td>
                <td>{formatTime(m.created_at)}</td>
                <td className="actions">
                  {can("merchants.update") && (
                    <button
                      type="button"
                      data-testid="toggle-active"
                      onClick={() =>
                        void act(() => api.put(`/merchants/${m.id}`, { is_active: !m.is_active }))
                      }
                    >
                      {m.is_active ? "Suspend" : "Activate"}
                    </button>
                  )}
                  {can("merchants.rotate_key") && (
                    <button
                      type="button"
                      data-testid="rotate-key"
                      onClick={() => {
                        if (
                          !window.confirm(
                            `Rotate the API key of ${m.name}? The current key stops working at once.`,
                          )
                        )
                          return;
                        const code = askTotpCode(me, "Rotate the API key");
                        if (code === undefined) return;
                        void act(async () =>
                          setShown(
                            await api.post<Created>(
                              `/merchants/${m.id}/rotate-api-key`,
                              code ? { totp_code: code } : undefined,
                            ),
                          ),
                        );
                      }}
                    >
                      Rotate key
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** One merchant: its ledger balance (DESIGN.md 14), stats and most recent orders. */
export function MerchantDetailPage({ id }: { id: string }) {
  const detail = useApi(() => api.get<MerchantDetail>(`/merchants/${encodeURIComponent(id)}`), id);
  if (detail.state === "loading") return <p>Loading…</p>;
  if (detail.state === "error") return <p className="error">{detail.message}</p>;
  const m = detail.data;
  return (
    <>
      <h1>
        {m.name}{" "}
        <span className={m.is_active ? "badge ok" : "badge bad"}>{m.is_active ? "active" : "suspended"}</span>
      </h1>
      <p className="muted">
        Key prefix <span className="mono">{m.api_key_prefix}…</span> · created {formatTime(m.created_at)} ·{" "}
        <Link to={`/admin/orders?merchant_id=${m.id}`}>all orders</Link>
      </p>
      <div className="grid">
        <section className="panel" aria-labelledby="balance-title">
          <h2 id="balance-title">Balance</h2>
          <dl data-testid="merchant-balance">
            <dt>Available</dt>
            <dd data-testid="balance-available">{trimAmount(m.balance.available)} USDT</dd>
            <dt>Reserved</dt>
            <dd data-testid="balance-reserved">{trimAmount(m.balance.reserved)} USDT</dd>
          </dl>
          <p className="muted">Reserved: refunds and payouts created but not yet completed.</p>
        </section>
        <section className="panel">
          <h2>Orders</h2>
          <dl>
            <dt>Total</dt>
            <dd>{m.order_count}</dd>
            <dt>Completed</dt>
            <dd>{m.completed_count}</dd>
            <dt>Active</dt>
            <dd>{m.active_order_count}</dd>
            <dt>Received</dt>
            <dd>{trimAmount(m.total_received)} USDT</dd>
            <dt>Success rate</dt>
            <dd>{m.success_rate}</dd>
          </dl>
        </section>
      </div>
      <section className="panel wide">
        <h2>Recent orders</h2>
        {m.recent_orders.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Order</th>
                <th>Status</th>
                <th className="num">Received</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {m.recent_orders.map((o) => (
                <tr key={o.id}>
                  <td>
                    <Link to={`/admin/orders/${o.id}`}>{o.external_id}</Link>
                  </td>
                  <td>{o.status}</td>
                  <td className="num">{trimAmount(o.amount_received)}</td>
                  <td>{formatTime(o.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
