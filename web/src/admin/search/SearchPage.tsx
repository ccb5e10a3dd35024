import { useEffect } from "react";
import type { SearchResult } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime, formatUsdt } from "../format.js";
import { navigate, Link } from "../router.js";
import { StatusBadge } from "../ui/StatusBadge.js";
import { useApi } from "../useApi.js";

const KIND: Record<SearchResult["data"][number]["kind"], string> = {
  order: "Order",
  payout: "Payout",
  refund: "Refund",
  stray_transfer: "Stray transfer",
};

const MATCHED: Record<SearchResult["data"][number]["matched"], string> = {
  id: "ID",
  external_id: "Merchant's reference",
  address: "Deposit address",
  tx_hash: "Transaction hash",
};

/**
 * What the search box found: orders, payouts, refunds and stray transfers whose ID, merchant's
 * reference, deposit address or transaction hash equals the query. A single hit opens its page.
 */
export function SearchPage({ query }: { query: URLSearchParams }) {
  const q = (query.get("q") ?? "").trim();
  const found = useApi(
    () =>
      q === ""
        ? Promise.resolve({ query: "", data: [] } satisfies SearchResult)
        : api.get<SearchResult>(`/search?q=${encodeURIComponent(q)}`),
    q,
  );
  const only = found.state === "ok" && found.data.data.length === 1 ? found.data.data[0] : undefined;
  useEffect(() => {
    if (only) navigate(only.link, { replace: true });
  }, [only]);
  if (q === "") {
    return (
      <>
        <h1>Search</h1>
        <p className="empty">
          Paste an order or payout ID, a merchant&apos;s reference, a deposit address or a transaction hash
          into the search box.
        </p>
      </>
    );
  }
  if (found.state === "loading") return <p>Searching…</p>;
  if (found.state === "error") return <p className="error">{found.message}</p>;
  const hits = found.data.data;
  return (
    <>
      <h1>Search</h1>
      {hits.length === 0 ? (
        <p className="empty" data-testid="search-empty">
          Nothing has the ID, reference, address or transaction hash “{q}”. Search takes the whole value: copy
          it from the merchant&apos;s system or the block explorer.
        </p>
      ) : (
        <div className="table-scroll" tabIndex={0}>
          <table data-testid="search-hits">
            <thead>
              <tr>
                <th>Found</th>
                <th>Matched by</th>
                <th>Merchant</th>
                <th>Amount</th>
                <th>Status</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {hits.map((hit) => (
                <tr key={`${hit.kind}-${hit.id}`} data-kind={hit.kind}>
                  <td>
                    <Link to={hit.link} testId="search-hit">
                      {KIND[hit.kind]}
                      {hit.external_id ? ` ${hit.external_id}` : ""}
                    </Link>
                  </td>
                  <td>{MATCHED[hit.matched]}</td>
                  <td>{hit.merchant_name ?? "—"}</td>
                  <td className="nowrap">{formatUsdt(hit.amount)}</td>
                  <td>
                    <StatusBadge status={hit.status} />
                  </td>
                  <td className="nowrap">{formatTime(hit.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
