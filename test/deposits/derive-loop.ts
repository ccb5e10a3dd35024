/** One deriving party of the derivation test: order addresses and static addresses, interleaved. */
import type { Context } from "../../src/context.js";
import { createDepositAddress } from "../../src/deposits/create-deposit-address.js";
import { createOrder } from "../../src/payments/create-order.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";

export async function deriveConcurrently(
  ctx: Context,
  options: { role: "worker" | "api"; merchantId: string; count: number; tag: string },
): Promise<void> {
  for (let i = 0; i < options.count; i++) {
    if (options.role === "worker") {
      // Grow the pool by a few addresses beyond what is free now, racing the other filler.
      await fillAddressPool(ctx, { target: 1_000_000, batchSize: 3 });
    } else {
      // The pool is kept empty of free addresses by the api's own orders: inline derivation.
      await createOrder(
        ctx,
        { id: options.merchantId },
        {
          externalId: `${options.tag}-order-${i}`,
          amount: "1",
          currency: "USDT",
          callbackUrl: "https://merchant.example.com/hooks",
        },
      );
    }
    await createDepositAddress(ctx, options.merchantId, {
      customerRef: `${options.tag}-customer-${i}`,
      callbackUrl: "https://merchant.example.com/hooks",
    });
    // The same customer twice, from every party: never a second address.
    await createDepositAddress(ctx, options.merchantId, {
      customerRef: `shared-customer-${i % 3}`,
      callbackUrl: "https://merchant.example.com/hooks",
    });
  }
}
