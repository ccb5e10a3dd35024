/**
 * Destination checks before anything is stored (DESIGN.md 14 and 16), for the chain the refund or
 * payout is paid on: an address in the chain's format (TRON base58check; EVM 0x hex, where mixed
 * case only with a correct EIP-55 checksum, all-lower or all-upper accepted as wallets do), and
 * never one of ours on that chain: a derived deposit address (pool or static, any family's addresses
 * are in one table), a hot or cold wallet, or a token contract the chain watches. Sending there
 * would move money in a circle, or lose it in the contract. Returns the address in stored form.
 *
 * What is "ours" is every configured wallet and contract of every family that parses as an address
 * of this chain's family (the TRON and EVM hot keys both give an address on either family: the key
 * holds both, so both are ours), so no check branches on a chain's name.
 */
import { sql } from "drizzle-orm";
import type { Chain } from "../chains/chain.js";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { queryRows } from "../db/query-rows.js";
import { AppError } from "../errors.js";

/** Our wallets and this chain's token contracts, each with what it is, as configured. */
function ownAddresses(ctx: Context, chain: Chain): [string | undefined, string][] {
  const { config } = ctx;
  const keys = [config.hotWalletPrivateKey, config.evmWallet.hotWalletPrivateKey].filter(
    (k): k is string => k !== undefined,
  );
  const configured = config.evmChains.find((c) => c.id === chain.id);
  const ours: [string | undefined, string][] = [
    [config.hotWalletAddress, "the hot wallet"],
    [config.evmWallet.hotWalletAddress, "the hot wallet"],
    [config.coldWalletAddress, "the cold wallet"],
    [config.evmWallet.coldWalletAddress, "the cold wallet"],
    [configured?.coldWalletAddress, "the cold wallet"],
    [ctx.chain.usdtContract ?? undefined, "the USDT contract"],
    [configured?.usdtContract, "the USDT contract"],
    [configured?.usdcContract, "the USDC contract"],
    ...chain.tokens.map((t): [string, string] => [t.contract, `the ${t.currency} contract`]),
  ];
  for (const key of keys) {
    try {
      ours.push([chain.address.fromPrivateKey(key), "the hot wallet"]);
    } catch {
      // A key the configuration accepted always gives an address; nothing to compare otherwise.
    }
  }
  return ours;
}

export async function checkDestination(
  ctx: Context,
  db: Executor,
  chain: Chain,
  address: unknown,
): Promise<string> {
  const stored = typeof address === "string" ? chain.address.normalise(address) : undefined;
  if (stored === undefined) {
    throw new AppError(
      "INVALID_ADDRESS",
      `address must be a valid ${chain.id} address (${chain.address.rule})`,
    );
  }
  for (const [own, what] of ownAddresses(ctx, chain)) {
    if (own !== undefined && chain.address.normalise(own) === stored) {
      throw new AppError(
        "ADDRESS_NOT_ALLOWED",
        `address is ${what} of this gateway on ${chain.id}; send to the recipient's own address`,
      );
    }
  }
  const [deposit] = await queryRows<{ one: number }>(
    db,
    sql`SELECT 1 AS one FROM addresses WHERE address = ${stored}`,
  );
  if (deposit) {
    throw new AppError(
      "ADDRESS_NOT_ALLOWED",
      "address is a deposit address of this gateway; send to the recipient's own address",
    );
  }
  return stored;
}
