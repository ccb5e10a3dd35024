/** The refund claim page's only API: the public /api/v1/refund-claims/:token (DESIGN.md 14). */
/** GET /api/v1/refund-claims/:token (src/payouts/refund-claim.ts, RefundClaimView). */
export interface RefundClaimView {
  status:
    | "awaiting_address"
    | "pending_approval"
    | "approved"
    | "sending"
    | "completed"
    | "failed"
    | "rejected"
    | "cancelled";
  amount: string;
  currency: "USDT";
  network: string;
  merchant_name: string;
  merchant_order: string | null;
  address: string | null;
  tx_hash: string | null;
  tx_explorer_url: string | null;
  claim_expires_at: string | null;
  claimable: boolean;
}

export type Fetched = { kind: "ok"; claim: RefundClaimView } | { kind: "not_found" } | { kind: "error" };

const url = (token: string) => `/api/v1/refund-claims/${encodeURIComponent(token)}`;

export async function fetchClaim(token: string, signal?: AbortSignal): Promise<Fetched> {
  try {
    const response = await fetch(url(token), {
      headers: { accept: "application/json" },
      cache: "no-store",
      signal,
    });
    if (response.status === 404) return { kind: "not_found" };
    if (!response.ok) return { kind: "error" };
    return { kind: "ok", claim: (await response.json()) as RefundClaimView };
  } catch {
    return { kind: "error" };
  }
}

export type Submitted =
  { kind: "ok"; claim: RefundClaimView } | { kind: "refused"; status: number; code: string; message: string };

export async function submitAddress(token: string, address: string): Promise<Submitted> {
  try {
    const response = await fetch(url(token), {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json" },
      body: JSON.stringify({ address }),
    });
    const data = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.ok) return { kind: "ok", claim: data as unknown as RefundClaimView };
    return {
      kind: "refused",
      status: response.status,
      code: typeof data.code === "string" ? data.code : "ERROR",
      message: typeof data.error === "string" ? data.error : `HTTP ${response.status}`,
    };
  } catch {
    return { kind: "refused", status: 0, code: "NETWORK", message: "the payment service did not answer" };
  }
}
