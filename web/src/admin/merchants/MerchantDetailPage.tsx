import type { MerchantDetail } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime, formatUsdt } from "../format.js";
import { Link } from "../router.js";
import { useApi } from "../useApi.js";
import { MerchantStatusBadge } from "./MerchantStatusBadge.js";

/** One merchant: its ledger balance per currency (DESIGN.md 14, 16), stats and most recent orders. */
export function MerchantDetailPage({ id }: { id: string }) {
  const detail = useApi(() => api.get<MerchantDetail>(`/merchants/${encodeURIComponent(id)}`), id);
  if (detail.state === "loading") return <p>Loading…</p>;
  if (detail.state === "error") return <p className="error">{detail.message}</p>;
  const m = detail.data;
  return (
    <>
      <h1>
        {m.name} <MerchantStatusBadge active={m.is_active} />
      </h1>
      <p className="muted">
        API key{" "}
        <span className="mono" data-verbatim>
          {m.api_key_prefix}…
        </span>{" "}
        · created {formatTime(m.created_at)} ·{" "}
        <Link to={`/admin/orders?merchant_id=${m.id}`}>all orders</Link>
      </p>
      <div className="grid">
        {balanceCurrencies(m).map(([currency, balance]) => (
          <section
            key={currency}
            className="panel"
            aria-labelledby={`balance-title-${currency}`}
            data-testid={`merchant-balance-${currency}`}
          >
            <h2 id={`balance-title-${currency}`}>{currency} balance</h2>
            <dl data-testid="merchant-balance">
              <dt>Available</dt>
              <dd data-testid="balance-available">{formatUsdt(balance.available, currency)}</dd>
              <dt>Reserved</dt>
              <dd data-testid="balance-reserved">{formatUsdt(balance.reserved, currency)}</dd>
            </dl>
            <p className="muted">
              Reserved: refunds and payouts in {currency} created but not yet completed. Whatever chain it
              arrived on, {currency} is one balance.
            </p>
            <BalanceBreakdown
              currency={currency}
              breakdown={m.balance_breakdowns[currency] ?? m.balance_breakdown}
            />
          </section>
        ))}
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
            <dd>{formatUsdt(m.total_received)}</dd>
            <dt>Completed share</dt>
            <dd>{m.success_rate}%</dd>
          </dl>
        </section>
      </div>
      <section className="panel wide">
        <h2>Recent orders</h2>
        {m.recent_orders.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <div className="table-scroll" tabIndex={0}>
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
                    <td className="num nowrap">{formatUsdt(o.amount_received)}</td>
                    <td>{formatTime(o.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

const BREAKDOWN_LINES: [keyof MerchantDetail["balance_breakdown"], string][] = [
  ["payments", "Payments credited"],
  ["deposits", "Deposits"],
  ["stray_transfers", "Stray transfers"],
  ["refunds", "Refunds sent"],
  ["payouts", "Payouts sent"],
  ["adjustments", "Adjustments"],
  ["pending", "Pending refunds and payouts"],
];

type Currency = Extract<keyof MerchantDetail["balances"], string>;
type Balance = NonNullable<MerchantDetail["balances"][Currency]>;

/**
 * The merchant's balance per currency (DESIGN.md 16): every currency the reply lists (the
 * deployment's, zero where none); SPEC's USDT `balance` when an older server sends no `balances`.
 */
function balanceCurrencies(m: MerchantDetail): [Currency, Balance][] {
  const listed = Object.entries(m.balances ?? {}).filter((entry): entry is [Currency, Balance] => !!entry[1]);
  return listed.length > 0 ? listed : [["USDT", m.balance]];
}

/** How the available balance is made, line by line from the ledger; the lines add up to it. */
function BalanceBreakdown({
  currency,
  breakdown,
}: {
  currency: Currency;
  breakdown: MerchantDetail["balance_breakdown"];
}) {
  return (
    <div className="table-scroll" tabIndex={0}>
      <table data-testid="balance-breakdown">
        <caption className="muted">How the {currency} balance is made (from the ledger)</caption>
        <tbody>
          {BREAKDOWN_LINES.filter(([line]) => line === "payments" || !/^-?0\.0+$/.test(breakdown[line])).map(
            ([line, label]) => (
              <tr key={line}>
                <th scope="row">{label}</th>
                <td className="num nowrap" data-testid={`breakdown-${line}`}>
                  {formatUsdt(breakdown[line], currency)}
                </td>
              </tr>
            ),
          )}
          <tr className="total">
            <th scope="row">Available</th>
            <td className="num nowrap" data-testid="breakdown-available">
              {formatUsdt(breakdown.available, currency)}
            </td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}
