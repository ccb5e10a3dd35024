import { useState, type FormEvent } from "react";
import type { DepositAddressList } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime, trimAmount } from "../format.js";
import { Link, navigate } from "../router.js";
import { Field } from "../ui/Field.js";
import { useApi } from "../useApi.js";

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
  const list = useApi(() => api.get<DepositAddressList>(`/deposit-addresses?${key}`), key);
  const [search, setSearch] = useState(ref ?? "");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(`/admin/deposit-addresses${search ? `?customer_ref=${encodeURIComponent(search)}` : ""}`);
  };
  return (
    <>
      <h1>Deposit addresses</h1>
      <form onSubmit={submit} className="filters">
        <Field
          label="Customer ref"
          value={search}
          onChange={setSearch}
          testId="deposit-search"
          placeholder="exact customer_ref"
        />
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
