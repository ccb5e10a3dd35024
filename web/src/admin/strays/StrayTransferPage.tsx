import type { StrayDetail } from "../../api-types.js";
import { api } from "../api.js";
import { formatUsdt } from "../format.js";
import { statusLabel, statusTone } from "../labels.js";
import { Ident } from "../ui/Ident.js";
import { useApi } from "../useApi.js";
import { StrayAddressPanel } from "./StrayAddressPanel.js";
import { StrayRefundPanel } from "./StrayRefundPanel.js";
import { StrayResolvePanel } from "./StrayResolvePanel.js";

/** One stray transfer: resolve it (attach, dismiss), refund it, and its address's history. */
export function StrayTransferPage({ id }: { id: string }) {
  const detail = useApi(() => api.get<StrayDetail>(`/stray-transfers/${encodeURIComponent(id)}`), id);
  if (detail.state === "loading") return <p>Loading…</p>;
  if (detail.state === "error") return <p className="error">{detail.message}</p>;
  const { stray } = detail.data;
  return (
    <>
      <h1>
        Stray transfer of {formatUsdt(stray.amount)}{" "}
        <span
          className={`badge ${statusTone(stray.resolution ?? "unresolved")}`}
          data-testid="stray-resolution"
        >
          {statusLabel(stray.resolution ?? "unresolved")}
        </span>
      </h1>
      <p className="empty">
        USDT arrived at one of the gateway's addresses with no order waiting for it. Attach it to the order it
        was meant for, refund it to the sender, or dismiss it with a reason.
      </p>
      <section className="panel">
        <dl className="fields">
          <div>
            <dt>Transaction</dt>
            <dd>
              <Ident value={stray.tx_hash} /> <span className="muted">transfer #{stray.log_index}</span>
            </dd>
          </div>
          <div>
            <dt>Sent from</dt>
            <dd>
              <Ident value={stray.from_address} />
            </dd>
          </div>
          <div>
            <dt>Sent to</dt>
            <dd>
              <Ident value={stray.address} />
            </dd>
          </div>
          <div>
            <dt>Chain</dt>
            <dd data-testid="stray-chain">{stray.chain}</dd>
          </div>
          {/^0\.0+$/.test(stray.remainder) ? null : (
            <div>
              <dt>Below one micro-unit</dt>
              <dd data-testid="stray-remainder">
                {stray.remainder} <span className="muted">kept on the record, never credited</span>
              </dd>
            </div>
          )}
        </dl>
      </section>
      <StrayResolvePanel stray={stray} onDone={detail.reload} />
      <StrayRefundPanel stray={stray} onDone={detail.reload} />
      <StrayAddressPanel detail={detail.data} onDone={detail.reload} />
    </>
  );
}
