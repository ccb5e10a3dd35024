/**
 * Random order traffic for the rollup race test: creations and every kind of transition on a shared
 * set of orders, so that two racers hit the same orders (compare-and-set losses) and the same
 * rollup counters (merchant x day x status) at once. Orders are read without a lock on purpose:
 * the loser of a race gets INVALID_STATE and its transaction rolls back, counters included.
 *
 * Stray transfers are in the mix (DESIGN.md 4 and 13), through the functions the scanner, the
 * confirmer and an operator call: each racer records new strays to a shared set of addresses no
 * order holds (addressHolders, then recordStrayTransfers, as the scanner does), and both confirm
 * and dismiss the same strays, so the stray_rollups counters (resolution x status) are hit at once.
 */
import { createHash } from "node:crypto";
import { eq, inArray, sql } from "drizzle-orm";
import type { Context } from "../../src/context.js";
import { orders } from "../../src/db/schema.js";
import { AppError } from "../../src/errors.js";
import { outcomeEvent, outcomeFor, transitionOrder, transitionOrders } from "../../src/orders/transitions.js";
import { queryRows } from "../../src/db/query-rows.js";
import { addressHolders } from "../../src/payments/address-holders.js";
import { createOrder } from "../../src/payments/create-order.js";
import { confirmStrayTransfers } from "../../src/strays/confirm-stray-transfers.js";
import { dismissStrayTransfer } from "../../src/strays/dismiss-stray-transfer.js";
import { recordStrayTransfers } from "../../src/strays/record-stray-transfers.js";

export interface RaceTally {
  steps: number;
  created: number;
  lost: number;
  /** strays this racer recorded */
  strays: number;
}

function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

async function step(ctx: Context, orderIds: string[], next: () => number): Promise<void> {
  const id = orderIds[Math.floor(next() * orderIds.length)] as string;
  const [order] = await ctx.db.select().from(orders).where(eq(orders.id, id));
  if (!order) throw new Error(`order ${id} not found`);
  const amount = 9_000_000n + BigInt(Math.floor(next() * 3)) * 1_000_000n;
  await ctx.db.transaction(async (tx) => {
    switch (order.status) {
      case "pending":
        if (next() < 0.3) {
          await transitionOrder(ctx, tx, { order, to: "expired", event: "order_expired" });
          return;
        }
        await transitionOrder(ctx, tx, { order, to: "detected", event: "payment_detected" });
        return;
      case "expired":
        await transitionOrder(ctx, tx, { order, to: "detected", event: "late_payment" });
        return;
      case "detected": {
        const to = outcomeFor(amount, order.amountExpected);
        await transitionOrder(ctx, tx, {
          order,
          to,
          event: outcomeEvent(to),
          patch: { amountReceived: amount },
        });
        return;
      }
      case "confirmed":
      case "underpaid":
      case "overpaid": {
        const roll = next();
        if (roll < 0.4) {
          const received = order.amountReceived + 1_000_000n;
          await transitionOrder(ctx, tx, {
            order,
            to: outcomeFor(received, order.amountExpected),
            event: "additional_payment",
            patch: { amountReceived: received },
          });
        } else if (roll < 0.8) {
          // The webhook sender's batch completion, with a second order when one is at hand.
          const others = await tx
            .select()
            .from(orders)
            .where(inArray(orders.status, ["confirmed", "underpaid", "overpaid"]))
            .limit(2);
          const batch = [order, ...others.filter((other) => other.id !== order.id)].slice(0, 2);
          await transitionOrders(ctx, tx, { orders: batch, to: "completed", event: "order_completed" });
        } else {
          await transitionOrder(ctx, tx, { order, to: "callback_failed", event: "webhook_failed" });
        }
        return;
      }
      case "callback_failed":
        await transitionOrder(ctx, tx, { order, to: "completed", event: "order_completed" });
        return;
      case "completed":
        return;
    }
  });
}

/** One stray step: record a new stray, confirm a seen one, or dismiss a confirmed one. */
async function strayStep(
  ctx: Context,
  input: { strayAddresses: string[]; name: string },
  i: number,
  next: () => number,
  tally: RaceTally,
): Promise<void> {
  const roll = next();
  if (roll < 0.4) {
    const to = input.strayAddresses[Math.floor(next() * input.strayAddresses.length)] as string;
    const recorded = await ctx.db.transaction(async (tx) => {
      const holder = (await addressHolders(tx, [to])).get(to);
      if (holder?.kind !== "stray")
        throw new Error(`${to} is not a stray address: ${JSON.stringify(holder)}`);
      const transfer = {
        txHash: createHash("sha256").update(`${input.name}-${i}`).digest("hex"),
        logIndex: 0,
        blockNumber: 1000 + i,
        blockHash: createHash("sha256").update(`block-${i}`).digest("hex"),
        blockTimestamp: ctx.clock.now(),
        from: "TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy",
        to,
        amount: 1_000_000n + BigInt(Math.floor(next() * 5)) * 100_000n,
        chain: "tron" as const,
        remainder: 0n,
      };
      return recordStrayTransfers(ctx, tx, [{ transfer, holder }]);
    });
    tally.strays += recorded;
    return;
  }
  const status = roll < 0.7 ? "seen" : "confirmed";
  const open = await queryRows<{ id: string }>(
    ctx.db,
    sql`SELECT id::text AS id FROM stray_transfers WHERE status = ${status} AND resolution IS NULL ORDER BY id`,
  );
  const pick = open[Math.floor(next() * open.length)];
  if (!pick) return;
  if (status === "seen") {
    await confirmStrayTransfers(ctx, [pick.id]);
    return;
  }
  await dismissStrayTransfer(ctx, {
    id: pick.id,
    actor: { kind: "system", label: input.name },
    reason: "rollup race",
  });
}

/**
 * Runs `steps` random steps; one creation for the merchant every fifth step, and a stray step every
 * fifth step when stray addresses are given.
 */
export async function race(
  ctx: Context,
  input: {
    merchantId: string;
    orderIds: string[];
    steps: number;
    seed: number;
    name: string;
    strayAddresses?: string[];
  },
): Promise<RaceTally> {
  const next = random(input.seed);
  const tally: RaceTally = { steps: 0, created: 0, lost: 0, strays: 0 };
  const strayAddresses = input.strayAddresses ?? [];
  for (let i = 0; i < input.steps; i++) {
    try {
      if (i % 5 === 0) {
        const { created } = await createOrder(
          ctx,
          { id: input.merchantId },
          {
            externalId: `${input.name}-${i}`,
            amount: "10",
            currency: "USDT",
            callbackUrl: "https://shop.example.com/cb",
          },
        );
        if (created) tally.created++;
      } else if (i % 5 === 3 && strayAddresses.length > 0) {
        await strayStep(ctx, { strayAddresses, name: input.name }, i, next, tally);
      } else {
        await step(ctx, input.orderIds, next);
      }
    } catch (error) {
      if (!(error instanceof AppError && error.code === "INVALID_STATE")) throw error;
      tally.lost++;
    }
    tally.steps++;
  }
  return tally;
}
