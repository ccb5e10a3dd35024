import type { StrayDetail } from "../../api-types.js";
import { api } from "../api.js";
import { shortId } from "../format.js";
import { statusLabel } from "../labels.js";
import { useCan } from "../me.js";
import { Link } from "../router.js";
import { OutcomeLine, useOutcome } from "../ui/Outcome.js";
import { StrayTable } from "./StrayTable.js";

/** The stray's address: who holds it, its sweep (with a retry), and every stray it received. */
export function StrayAddressPanel({ detail, onDone }: { detail: StrayDetail; onDone: () => void }) {
  const can = useCan();
  const { outcome, report } = useOutcome();
  const { stray, address } = detail;
  // A failed sweep of the address, or dust it left below SWEEP_MIN_USDT, can be queued again.
  const sweepRetryable = address.settlement?.status === "failed" || stray.sweep.status === "below_minimum";
  const retrySweep = () =>
    report(async () => {
      await api.post(`/stray-transfers/${stray.id}/retry-sweep`, {});
      onDone();
      return "Sweep queued again.";
    }, "Retry sweep");
  return (
    <section className="panel wide" data-testid="address-history">
      <h2>Address {address.address}</h2>
      <p className="muted">
        {statusLabel(address.status)}
        {address.order_id && (
          <>
            {" "}
            · held by <Link to={`/admin/orders/${address.order_id}`}>its order</Link>
          </>
        )}
        {address.last_order_id && (
          <>
            {" "}
            · last order{" "}
            <Link to={`/admin/orders/${address.last_order_id}`}>{shortId(address.last_order_id)}</Link>
          </>
        )}
        {address.settlement && (
          <>
            {" "}
            · sweep <span data-testid="address-sweep-status">{statusLabel(address.settlement.status)}</span>
            {address.settlement.last_error && <> ({address.settlement.last_error})</>}
          </>
        )}
      </p>
      {sweepRetryable && can("strays.retry_sweep") && (
        <p className="actions">
          <button type="button" data-testid="stray-retry-sweep" onClick={() => void retrySweep()}>
            Retry sweep
          </button>
        </p>
      )}
      <OutcomeLine outcome={outcome} testId="stray-sweep-message" />
      <StrayTable strays={address.strays} testId="address-strays" />
    </section>
  );
}
