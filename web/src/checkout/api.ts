import type { CheckoutStatus } from "../api-types.js";
import { fetchPublic, type Fetched } from "../public-api.js";

export type { CheckoutStatus };

/** GET /api/v1/checkout/:id/status: all the checkout page reads (DESIGN.md 3). */
export function fetchStatus(orderId: string, signal?: AbortSignal): Promise<Fetched<CheckoutStatus>> {
  return fetchPublic(`/api/v1/checkout/${encodeURIComponent(orderId)}/status`, signal);
}
