/** The refund claim page's only API: the public /api/v1/refund-claims/:token (DESIGN.md 14). */
import type { ErrorBody, RefundClaimView } from "../api-types.js";
import { fetchPublic, type Fetched } from "../public-api.js";

export type { RefundClaimView };

const url = (token: string) => `/api/v1/refund-claims/${encodeURIComponent(token)}`;

export function fetchClaim(token: string, signal?: AbortSignal): Promise<Fetched<RefundClaimView>> {
  return fetchPublic(url(token), signal);
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
    const data = (await response.json().catch(() => ({}))) as Partial<ErrorBody>;
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
