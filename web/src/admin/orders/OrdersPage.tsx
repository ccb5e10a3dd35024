import { useState, type FormEvent } from "react";
import type { MerchantList, OrderList } from "../../api-types.js";
import { api } from "../api.js";
import {
  CHAIN_IDS,
  CHAIN_LABELS,
  CURRENCIES,
  formatTime,
  formatUsdt,
  ORDER_STATUSES,
  shortId,
} from "../format.js";
import { statusLabel } from "../labels.js";
import { Link, navigate } from "../router.js";
import { Field } from "../ui/Field.js";
import { useApi } from "../useApi.js";
import { OrderStatusBadge } from "./OrderStatusBadge.js";

const FILTERS = ["status", "merchant_id", "chain", "currency", "from", "to", "page"] as const;

/**
 * The filters live in the URL (?status=…&merchant_id=…&chain=…&currency=…&from=…&to=…&page=…), so a
 * view can be shared.
 */
export function OrdersPage({ query }: { query: URLSearchParams }) {
  const params = new URLSearchParams();
  for (const name of FILTERS) {
    const value = query.get(name);
    if (value) params.set(name, value);
  }
  params.set("limit", "20");
  const key = params.toString();
  const orders = useApi(() => api.get<OrderList>(`/orders?${key}`), key);
  const merchants = useApi(() => api.get<MerchantList>("/merchants"), "merchants");

  const [status, setStatus] = useState(query.get("status") ?? "");
  const [merchant, setMerchant] = useState(query.get("merchant_id") ?? "");
  const [chain, setChain] = useState(query.get("chain") ?? "");
  const [currency, setCurrency] = useState(query.get("currency") ?? "");
  const [from, setFrom] = useState(query.get("from")?.slice(0, 10) ?? "");
  const [to, setTo] = useState(query.get("to")?.slice(0, 10) ?? "");

  const apply = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams();
    if (status) next.set("status", status);
    if (merchant) next.set("merchant_id", merchant);
    if (chain) next.set("chain", chain);
    if (currency) next.set("currency", currency);
    if (from) next.set("from", `${from}T00:00:00.000Z`);
    if (to) next.set("to", `${to}T23:59:59.999Z`);
    navigate(`/admin/orders${next.size ? `?${next}` : ""}`);
  };
  const goToPage = (page: number) => {
    const next = new URLSearchParams(query);
    next.set("page", String(page));
    navigate(`/admin/orders?${next}`);
  };

  return (
    <>
      <h1>Orders</h1>
      <form className="panel inline-form" onSubmit={apply} data-testid="order-filters">
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.target.value)} data-testid="filter-status">
            <option value="">Any status</option>
            {ORDER_STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Merchant
          <select
            value={merchant}
            onChange={(e) => setMerchant(e.target.value)}
            data-testid="filter-merchant"
          >
            <option value="">Any merchant</option>
            {merchants.state === "ok" &&
              merchants.data.data.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                </option>
              ))}
          </select>
        </label>
        <label>
          Chain
          <select value={chain} onChange={(e) => setChain(e.target.value)} data-testid="filter-chain">
            <option value="">Any chain</option>
            {CHAIN_IDS.map((c) => (
              <option key={c} value={c}>
                {CHAIN_LABELS[c].name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Currency
          <select
            value={currency}
            onChange={(e) => setCurrency(e.target.value)}
            data-testid="filter-currency"
          >
            <option value="">Any currency</option>
            {CURRENCIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <Field label="From (UTC)" type="date" value={from} onChange={setFrom} />
        <Field label="To (UTC)" type="date" value={to} onChange={setTo} />
        <button type="submit" data-testid="apply-filters">
          Apply
        </button>
      </form>
      {orders.state === "loading" && <p>Loading…</p>}
      {orders.state === "error" && <p className="error">{orders.message}</p>}
      {orders.state === "ok" && (
        <>
          <div className="table-scroll" tabIndex={0}>
            <table data-testid="orders">
              <thead>
                <tr>
                  <th>Created</th>
                  <th>Order</th>
                  <th>Merchant</th>
                  <th>Chain</th>
                  <th className="num">Expected</th>
                  <th className="num">Received</th>
                  <th>Status</th>
                </tr>
              </thead>
              <tbody>
                {orders.data.data.map((o) => (
                  <tr key={o.id} data-testid="order-row">
                    <td className="nowrap">{formatTime(o.created_at)}</td>
                    <td>
                      <Link to={`/admin/orders/${o.id}`}>{o.external_id}</Link>{" "}
                      <span className="muted mono" title={o.id}>
                        {shortId(o.id)}
                      </span>
                    </td>
                    <td>{o.merchant_name}</td>
                    <td className="nowrap" data-testid="order-chain">
                      {CHAIN_LABELS[o.chain].name}
                    </td>
                    <td className="num nowrap">{formatUsdt(o.amount_expected, o.currency)}</td>
                    <td className="num nowrap">{formatUsdt(o.amount_received, o.currency)}</td>
                    <td>
                      <OrderStatusBadge status={o.status} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {orders.data.data.length === 0 && (
            <p className="empty" data-testid="orders-empty">
              {key === "limit=20"
                ? "No orders yet. Orders appear here once a merchant creates one with POST /api/v1/payments."
                : "No orders match these filters. Change or clear them to see more."}
            </p>
          )}
          <p className="pager" data-testid="pager">
            <button
              type="button"
              disabled={orders.data.pagination.page <= 1}
              onClick={() => goToPage(orders.data.pagination.page - 1)}
            >
              Previous
            </button>
            <span>
              Page {orders.data.pagination.page} of {Math.max(1, orders.data.pagination.total_pages)} ·{" "}
              {orders.data.pagination.total} orders
            </span>
            <button
              type="button"
              disabled={orders.data.pagination.page >= orders.data.pagination.total_pages}
              onClick={() => goToPage(orders.data.pagination.page + 1)}
              data-testid="next-page"
            >
              Next
            </button>
          </p>
        </>
      )}
    </>
  );
}
