/**
 * A wallet's USDT balance read from the node (the token contract's balanceOf, a constant call):
 * the wallet page's hot and cold wallet balances and the payout float. Throws when the node does
 * not answer or answers no value; callers show "unavailable" then. It reads TRON's contract with
 * TRON's toolkit, so it sits with the payout float (a chain-boundary exception, eslint.config.js)
 * until balances move behind the chain boundary.
 */
import { encodeBalanceOf } from "@stablegate/tron/abi";
import type { Context } from "../context.js";

/** Micro-USDT held by `address`; undefined when no USDT contract is configured. */
export async function readUsdtBalance(ctx: Context, address: string): Promise<bigint | undefined> {
  const usdt = ctx.chain.usdtContract;
  if (!usdt) return undefined;
  const result = await ctx.chain.client.triggerConstantContract({
    owner: address,
    contract: usdt,
    data: encodeBalanceOf(address),
  });
  const word = result.constant_result?.[0];
  if (!word || !/^[0-9a-f]{1,64}$/i.test(word)) throw new Error("balanceOf answered no value");
  return BigInt(`0x${word}`);
}
