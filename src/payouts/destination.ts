/**
 * Destination checks before anything is stored (DESIGN.md 14): a valid TRON base58check address
 * (checked by the TRON toolkit, src/tron), and never one of ours: a deposit address of the pool,
 * the hot wallet, the cold wallet or the USDT contract. Sending there would move money in a
 * circle, or lose it in the contract.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { AppError } from "../errors.js";
import { addressFromPrivateKey, isValidAddress } from "@stablegate/tron/address";

export async function checkDestination(ctx: Context, db: Executor, address: unknown): Promise<string> {
  if (typeof address !== "string" || !isValidAddress(address)) {
    throw new AppError(
      "INVALID_ADDRESS",
      "address must be a valid TRON address (base58check, starting with T)",
    );
  }
  const { config } = ctx;
  const hot =
    config.hotWalletAddress ??
    (config.hotWalletPrivateKey ? addressFromPrivateKey(config.hotWalletPrivateKey) : undefined);
  const ours: [string | undefined, string][] = [
    [hot, "the hot wallet"],
    [config.coldWalletAddress, "the cold wallet"],
    [ctx.chain.usdtContract ?? undefined, "the USDT contract"],
  ];
  for (const [own, what] of ours) {
    if (own !== undefined && own === address) {
      throw new AppError(
        "ADDRESS_NOT_ALLOWED",
        `address is ${what} of this gateway; send to the recipient's own address`,
      );
    }
  }
  const [deposit] = await queryRows<{ one: number }>(
    db,
    sql`SELECT 1 AS one FROM addresses WHERE address = ${address}`,
  );
  if (deposit) {
    throw new AppError(
      "ADDRESS_NOT_ALLOWED",
      "address is a deposit address of this gateway; send to the recipient's own address",
    );
  }
  return address;
}
