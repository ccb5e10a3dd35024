/**
 * The public checkout status (DESIGN.md 3): what GET /api/v1/checkout/:id/status answers and all the
 * hosted checkout page (web/) reads. It imports only types without a runtime, so the server, the web
 * UI and the demo share this one definition, and a change to the reply fails to compile where it is read.
 */
import type { OrderStatus } from "../orders/order-statuses.js";

export interface CheckoutStatus {
  id: string;
  status: OrderStatus;
  merchant_name: string;
  /** 6-decimal string of micro-USDT, as every amount outside. */
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
