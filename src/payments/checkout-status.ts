/**
 * The public checkout status (DESIGN.md 3): what GET /api/v1/checkout/:id/status answers. Type
 * declarations only, shared by the reply's builder and the demo payer; the hosted checkout page reads
 * it through the generated OpenAPI types.
 */
import type { ChainId, Currency } from "../chains/chain-types.js";
import type { OrderStatus } from "../orders/order-statuses.js";

/**
 * What the payer's payment came to, whatever the merchant's webhook did: paid (exactly what was
 * asked), overpaid, underpaid (still short), accepted (short, but the merchant accepted it as
 * settled); null while the order has no outcome (awaiting payment, confirming, expired unpaid).
 */
export type CheckoutOutcome = "paid" | "overpaid" | "underpaid" | "accepted";

export interface CheckoutStatus {
  id: string;
  status: OrderStatus;
  merchant_name: string;
  /** 6-decimal string of micro-USDT, as every amount outside. */
  amount_expected: string;
  amount_received: string;
  currency: Currency;
  /** The chain the order is paid on; `network` is that chain's network name. */
  chain: ChainId;
  network: string;
  /** The chain and its token standard as people name them: "Ethereum", "ERC-20". */
  chain_name: string;
  token_standard: string;
  /** In the chain's display form (EVM: EIP-55 checksummed). */
  address: string;
  /**
   * What the payer's wallet scans to pay what is still owed (TRON: the address; EVM: an EIP-681
   * transfer request); null while the order takes no payment, or when the chain could not be read.
   */
  payment_uri: string | null;
  tx_hash: string | null;
  confirmations: number;
  confirmations_required: number;
  expires_at: string;
  explorer_url: string | null;
  outcome: CheckoutOutcome | null;
}
