/** The public checkout status (DESIGN.md 3): all the page ever reads. */
export type OrderStatus =
  | "pending"
  | "detected"
  | "confirmed"
  | "underpaid"
  | "overpaid"
  | "completed"
  | "expired"
  | "callback_failed";

export interface CheckoutStatus {
  id: string;
  status: OrderStatus;
  merchant_name: string;
  amount_expected: string;
  amount_received: string;
  currency: string;
  network: string;
  address: string;
  tx_hash: string | null;
  confirmations: number;
  confirmations_required: number;
  expires_at: string;
  explorer_url: string | null;
}

export type Fetched = { kind: "ok"; status: CheckoutStatus } | { kind: "not_found" } | { kind: "error" };

export async function fetchStatus(orderId: string, signal?: AbortSignal): Promise<Fetched> {
  try {
    const response = await fetch(`/api/v1/checkout/${encodeURIComponent(orderId)}/status`, {
      headers: { accept: "application/json" },
      cache: "no-store",
      signal,
    });
    if (response.status === 404) return { kind: "not_found" };
    if (!response.ok) return { kind: "error" };
    return { kind: "ok", status: (await response.json()) as CheckoutStatus };
  } catch {
    return { kind: "error" };
  }
}
