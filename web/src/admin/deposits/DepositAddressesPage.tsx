import { useState, type FormEvent } from "react";
import type { DepositAddressList, MerchantList } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime, formatUsdt, shortId } from "../format.js";
import { StatusBadge } from "../ui/StatusBadge.js";
import { Link, navigate } from "../router.js";
import { Field } from "../ui/Field.js";
import { useApi } from "../useApi.js";

/**
 * Static deposit addresses: search by customer reference (the filter lives in the URL),
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
  const list = useApi(() => api.get<DepositAddressList>(`/deposit-addresses?${key}`), key);
  const merchants = useApi(() => api.get<MerchantList>("/merchants"), "merchants");
  const names = new Map(merchants.state === "ok" ? merchants.data.data.map((m) => [m.id, m.name]) : []);
  const [search, setSearch] = useState(ref ?? "");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(`/admin/deposit-addresses${search ? `?customer_ref=${encodeURIComponent(search)}` : ""}`);
  };
  return (
    <>
      <h1>Deposit addresses</h1>
      <form onSubmit={submit} className="filters inline-form">
        <Field
          label="Customer reference"
          value={search}
          onChange={setSearch}
          testId="deposit-search"
          placeholder="exact reference"
        />
        <button type="submit" data-testid="deposit-search-go">
          Search
        </button>
      </form>
      {list.state === "loading" && <p>Loading…</p>}
      {list.state === "error" && <p className="error">{list.message}</p>}
      {list.state === "ok" && (
        <>
          <div className="table-scroll" tabIndex={0}>
            <table data-testid="deposit-addresses">
              <thead>
                <tr>
                  <th>Customer reference</th>
                  <th>Merchant</th>
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
                    <td>{names.get(row.merchant_id) ?? shortId(row.merchant_id)}</td>
                    <td className="mono">{row.address}</td>
                    <td>
                      <StatusBadge status={row.status} />
                    </td>
                    <td>{row.deposit_count}</td>
                    <td className="nowrap">{formatUsdt(row.total_received)}</td>
                    <td className="nowrap">{formatTime(row.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.data.data.length === 0 && (
            <p className="empty" data-testid="deposit-addresses-empty">
              No deposit addresses. A merchant creates one per customer with POST /api/v1/deposit-addresses.
            </p>
          )}
          <p>
            {list.data.pagination.total} addresses, page {list.data.pagination.page} of{" "}
            {Math.max(1, list.data.pagination.total_pages)}
          </p>
        </>
      )}
    </>
  );
}
