/**
 * The two roles of the address-supply race: a creator keeps `concurrency` order creations in
 * flight until the deadline and tallies every failure by its code; a filler runs the pool filler
 * back to back until the deadline. Shared by the racer processes (PostgreSQL) and the in-process
 * race (PGlite).
 */
import type { Context } from "../../src/context.js";
import { AppError } from "../../src/errors.js";
import { createOrder } from "../../src/payments/create-order.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";

export interface SupplyRaceInput {
  role: "creator" | "filler";
  name: string;
  merchantId: string;
  durationMs: number;
  concurrency?: number;
  /** The filler's target (its POOL_MIN_FREE). */
  target?: number;
}

export interface SupplyRaceTally {
  name: string;
  created: number;
  filled: number;
  /** Failures by error code (AppError) or "unexpected: message". */
  errors: Record<string, number>;
}

export async function supplyRace(ctx: Context, input: SupplyRaceInput): Promise<SupplyRaceTally> {
  const tally: SupplyRaceTally = { name: input.name, created: 0, filled: 0, errors: {} };
  const deadline = Date.now() + input.durationMs;
  const fail = (error: unknown) => {
    // A database error's own message (drizzle wraps it in "Failed query: <statement>").
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    const key =
      error instanceof AppError
        ? error.code
        : `unexpected: ${cause ?? (error as Error).message.split("\n")[0]}`;
    tally.errors[key] = (tally.errors[key] ?? 0) + 1;
  };
  if (input.role === "filler") {
    while (Date.now() < deadline) {
      try {
        tally.filled += (await fillAddressPool(ctx, { target: input.target ?? 0 })).inserted;
      } catch (error) {
        fail(error);
      }
    }
    return tally;
  }
  let n = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      try {
        await createOrder(
          ctx,
          { id: input.merchantId },
          {
            externalId: `${input.name}-${n++}`,
            amount: "1",
            currency: "USDT",
            callbackUrl: "https://shop.example.com/cb",
          },
        );
        tally.created += 1;
      } catch (error) {
        fail(error);
      }
    }
  };
  await Promise.all(Array.from({ length: input.concurrency ?? 8 }, worker));
  return tally;
}
