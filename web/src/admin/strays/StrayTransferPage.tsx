import type { StrayDetail } from "../../api-types.js";
import { api } from "../api.js";
import { trimAmount } from "../format.js";
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
        Stray transfer of {trimAmount(stray.amount)} USDT{" "}
        <span className="badge" data-testid="stray-resolution">
          {stray.resolution ?? "unresolved"}
        </span>
      </h1>
      <p className="muted mono">
        {stray.tx_hash} #{stray.log_index} · from {stray.from_address} · to {stray.address}
      </p>
      <StrayResolvePanel stray={stray} onDone={detail.reload} />
      <StrayRefundPanel stray={stray} onDone={detail.reload} />
      <StrayAddressPanel detail={detail.data} onDone={detail.reload} />
    </>
  );
}
