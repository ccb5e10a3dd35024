import { z } from "zod";
import { CHAIN_IDS, CURRENCIES } from "../../chains/chain-types.js";
import { ORDER_STATUSES } from "../../orders/order-statuses.js";
import { errorReply } from "./error-reply.js";
import { isoTimestamp } from "./merchant-fields.js";

/** Deliberately without callback_url, metadata or external_id: the payer's browser reads this. */
export const checkoutStatusReply = z.object({
  id: z.string(),
  status: z.enum(ORDER_STATUSES),
  merchant_name: z.string(),
  amount_expected: z.string(),
  amount_received: z.string(),
  currency: z.enum(CURRENCIES),
  chain: z.enum(CHAIN_IDS),
  network: z.string(),
  chain_name: z
    .string()
    .meta({ description: 'the chain as people name it: "TRON", "Ethereum", "BNB Smart Chain"' }),
  token_standard: z
    .string()
    .meta({ description: 'the token standard on that chain: "TRC20", "ERC-20", "BEP-20"' }),
  address: z.string().meta({ description: "the deposit address, in the chain's display form (EVM: EIP-55)" }),
  payment_uri: z.string().nullable().meta({
    description:
      "what the payer's wallet scans to pay what is still owed: the address on TRON, an EIP-681 transfer request (ethereum:<token>@<chain id>/transfer?address=<to>&uint256=<token units>) on EVM chains; null while the order takes no payment",
  }),
  tx_hash: z.string().nullable(),
  confirmations: z.number().int(),
  confirmations_required: z.number().int(),
  expires_at: isoTimestamp,
  explorer_url: z.string().nullable(),
  outcome: z.enum(["paid", "overpaid", "underpaid", "accepted"]).nullable().optional().meta({
    description:
      "what the payment came to, whatever the merchant's webhook did: paid (exactly the amount), overpaid, underpaid (still short), accepted (short, accepted by the merchant as settled); null while there is no outcome",
  }),
});

export const checkoutStatusSchema = {
  tags: ["public"],
  summary: "Payment status for the hosted checkout page",
  params: z.object({ id: z.string().max(100) }),
  response: { 200: checkoutStatusReply, 404: errorReply },
};
