import type { DepositAddressDetail, DepositList } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime, formatUsdt, shortId } from "../format.js";
import { statusLabel } from "../labels.js";
import { useCan } from "../me.js";
import { ErrorAlert } from "../ui/ErrorAlert.js";
import { useAction, useApi } from "../useApi.js";

/** One static deposit address (DESIGN.md 15): its figures, disable or enable, and its deposits. */
export function DepositAddressDetailPage({ id }: { id: string }) {
  const can = useCan();
  const detail = useApi(
    () => api.get<DepositAddressDetail>(`/deposit-addresses/${encodeURIComponent(id)}`),
    id,
  );
  const deposits = useApi(
    () => api.get<DepositList>(`/deposits?deposit_address_id=${encodeURIComponent(id)}&limit=100`),
    id,
  );
  const toggle = useAction(detail.reload);
  if (detail.state === "loading") return <p>Loading…</p>;
  if (detail.state === "error") return <p className="error">{detail.message}</p>;
  const address = detail.data;
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
          <dd data-testid="deposit-address-status">{statusLabel(address.status)}</dd>
          <dt>Merchant</dt>
          <dd>{shortId(address.merchant_id)}</dd>
          <dt>Confirmed deposits</dt>
          <dd data-testid="deposit-address-count">{address.deposit_count}</dd>
          <dt>Received</dt>
          <dd data-testid="deposit-address-total">{formatUsdt(address.total_received)}</dd>
          <dt>Callback URL</dt>
          <dd className="mono">{address.callback_url}</dd>
          <dt>Created</dt>
          <dd>{formatTime(address.created_at)}</dd>
        </dl>
        {can("deposit_addresses.manage") && (
          <button
            type="button"
            disabled={toggle.busy}
            onClick={() =>
              void toggle.run(() =>
                api.post(
                  `/deposit-addresses/${encodeURIComponent(id)}/${address.status === "active" ? "disable" : "enable"}`,
                ),
              )
            }
            data-testid="deposit-address-toggle"
          >
            {address.status === "active" ? "Disable" : "Enable"}
          </button>
        )}
        <ErrorAlert error={toggle.error} />
      </section>
      <h2>Deposits</h2>
      {deposits.state === "ok" && (
        <div className="table-scroll" tabIndex={0}>
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
                  <td className="nowrap">
                    {formatUsdt(d.amount, d.currency)}
                    {/^0\.0+$/.test(d.remainder) ? null : (
                      <div className="muted small" data-testid="deposit-remainder">
                        + {d.remainder} below one micro-unit, not credited
                      </div>
                    )}
                  </td>
                  <td>{statusLabel(d.status)}</td>
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
        </div>
      )}
      {deposits.state === "ok" && deposits.data.data.length === 0 && <p>No deposits yet.</p>}
    </>
  );
}
