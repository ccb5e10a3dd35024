import type { CheckoutStatus } from "../../../src/payments/checkout-status.js";

export type { CheckoutStatus };

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
