import { useCan } from "./me.js";
import { useState, type FormEvent } from "react";
import {
  api,
  type DepositAddressDetail,
  type DepositAddressSummary,
  type DepositSummary,
  type Pagination,
} from "./api.js";
import { formatTime, shortId, trimAmount } from "./format.js";
import { Link, navigate } from "./router.js";
import { errorMessage, useApi } from "./useApi.js";

/**
 * Static deposit addresses (DESIGN.md 15): search by customer_ref (the filter lives in the URL),
 * open one to see its deposits, disable or enable it.
 */
export function DepositAddressesPage({ query }: { query: URLSearchParams }) {
  const params = new URLSearchParams();
  const ref = query.get("customer_ref");
  if (ref) params.set("customer_ref", ref);
  const page = query.get("page");
  if (page) params.set("page", page);
  params.set("limit", "20");
  const key = params.toString();
  const list = useApi(
    () => api.get<{ data: DepositAddressSummary[]; pagination: Pagination }>(`/deposit-addresses?${key}`),
    key,
  );
  const [search, setSearch] = useState(ref ?? "");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(`/admin/deposit-addresses${search ? `?customer_ref=${encodeURIComponent(search)}` : ""}`);
  };
  return (
    <>
      <h1>Deposit addresses</h1>
      <form onSubmit={submit} className="filters">
        <label>
          Customer ref
          <input
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            data-testid="deposit-search"
            placeholder="exact customer_ref"
          />
        </label>
        <button type="submit" data-testid="deposit-search-go">
          Search
        </button>
      </form>
      {list.state === "loading" && <p>Loading…</p>}
      {list.state === "error" && <p className="error">{list.message}</p>}
      {list.state === "ok" && (
        <>
          <table data-testid="deposit-addresses">
            <thead>
              <tr>
                <th>Customer ref</th>
                <th>Address</th>
                <th>Status</th>
                <th>Deposits</th>
                <th>Received</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((row) => (
                <tr key={row.id} data-testid="deposit-address-row">
                  <td>
                    <Link
                      to={`/admin/deposit-addresses/${row.id}`}
                      testId={`deposit-address-${row.customer_ref}`}
                    >
                      {row.customer_ref}
                    </Link>
                  </td>
                  <td className="mono">{row.address}</td>
                  <td>{row.status}</td>
                  <td>{row.deposit_count}</td>
                  <td>{trimAmount(row.total_received)} USDT</td>
                  <td>{formatTime(row.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.data.data.length === 0 && <p data-testid="deposit-addresses-empty">No deposit addresses.</p>}
          <p>
            {list.data.pagination.total} addresses, page {list.data.pagination.page} of{" "}
            {Math.max(1, list.data.pagination.total_pages)}
          </p>
        </>
      )}
    </>
  );
}

export function DepositAddressDetailPage({ id }: { id: string }) {
  const can = useCan();
  const detail = useApi(
    () => api.get<DepositAddressDetail>(`/deposit-addresses/${encodeURIComponent(id)}`),
    id,
  );
  const deposits = useApi(
    () =>
      api.get<{ data: DepositSummary[]; pagination: Pagination }>(
        `/deposits?deposit_address_id=${encodeURIComponent(id)}&limit=100`,
      ),
    id,
  );
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (detail.state === "loading") return <p>Loading…</p>;
  if (detail.state === "error") return <p className="error">{detail.message}</p>;
  const address = detail.data;
  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.post(
        `/deposit-addresses/${encodeURIComponent(id)}/${address.status === "active" ? "disable" : "enable"}`,
      );
      detail.reload();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <h1>Deposit address {address.customer_ref}</h1>
      <section className="panel">
        <dl>
          <dt>Address</dt>
          <dd className="mono" data-testid="deposit-address-address">
            {address.address}
          </dd>
          <dt>Status</dt>
          <dd data-testid="deposit-address-status">{address.status}</dd>
          <dt>Merchant</dt>
          <dd>{shortId(address.merchant_id)}</dd>
          <dt>Confirmed deposits</dt>
          <dd data-testid="deposit-address-count">{address.deposit_count}</dd>
          <dt>Received</dt>
          <dd data-testid="deposit-address-total">{trimAmount(address.total_received)} USDT</dd>
          <dt>Callback URL</dt>
          <dd className="mono">{address.callback_url}</dd>
          <dt>Created</dt>
          <dd>{formatTime(address.created_at)}</dd>
        </dl>
        {can("deposit_addresses.manage") && (
          <button
            type="button"
            disabled={busy}
            onClick={() => void toggle()}
            data-testid="deposit-address-toggle"
          >
            {address.status === "active" ? "Disable" : "Enable"}
          </button>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </section>
      <h2>Deposits</h2>
      {deposits.state === "ok" && (
        <table data-testid="deposits">
          <thead>
            <tr>
              <th>Amount</th>
              <th>Status</th>
              <th>Flags</th>
              <th>Transaction</th>
              <th>From</th>
              <th>Detected</th>
            </tr>
          </thead>
          <tbody>
            {deposits.data.data.map((d) => (
              <tr key={d.id} data-testid="deposit-row">
                <td>{trimAmount(d.amount)} USDT</td>
                <td>{d.status}</td>
                <td>
                  {[
                    d.below_minimum ? "below minimum" : "",
                    d.address_status === "disabled" ? "to disabled address" : "",
                    d.swept ? "swept" : "",
                  ]
                    .filter(Boolean)
                    .join(", ") || "—"}
                </td>
                <td className="mono">{shortId(d.tx_hash)}</td>
                <td className="mono">{d.from_address}</td>
                <td>{formatTime(d.detected_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deposits.state === "ok" && deposits.data.data.length === 0 && <p>No deposits yet.</p>}
    </>
  );
}

/** The overview's deposits panel: the newest deposits to static addresses. */
export function RecentDeposits() {
  const recent = useApi(() => api.get<{ data: DepositSummary[] }>("/deposits?limit=10"), "recent-deposits");
  if (recent.state !== "ok") return null;
  return (
    <section className="panel" data-testid="recent-deposits">
      <h2>Recent deposits</h2>
      {recent.data.data.length === 0 ? (
        <p>No deposits to static addresses yet.</p>
      ) : (
        <table>
          <tbody>
            {recent.data.data.map((d) => (
              <tr key={d.id} data-testid="recent-deposit">
                <td>
                  <Link to={`/admin/deposit-addresses/${d.deposit_address_id}`}>{d.customer_ref}</Link>
                </td>
                <td>{trimAmount(d.amount)} USDT</td>
                <td>{d.status}</td>
                <td>{formatTime(d.detected_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
