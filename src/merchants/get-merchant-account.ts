/**
 * What a merchant sees of itself (GET /api/v1/merchant/me, DESIGN.md 14 and 16): the authenticated
 * merchant with its ledger balance per currency. `balance` is the USDT balance (SPEC's field, so a
 * TRON-only integration sees nothing change); `balances` holds every currency the deployment enables.
 */
import type { Currency } from "../chains/chain-types.js";
import { enabledCurrencies } from "../chains/registry.js";
import type { Context } from "../context.js";
import { getMerchantBalances, type MerchantBalance } from "../ledger/post-ledger.js";
import type { MerchantRow } from "./types.js";

export interface MerchantAccount {
  merchant: MerchantRow;
  /** The USDT balance (SPEC's `balance`). */
  balance: MerchantBalance;
  /** Per currency: every one the deployment enables (zeros where none), and any other it holds. */
  balances: Partial<Record<Currency, MerchantBalance>>;
}

/** The USDT balance and every currency's, from one read of the merchant's balance rows. */
export async function getAccountBalances(
  ctx: Context,
  merchantId: string,
): Promise<Pick<MerchantAccount, "balance" | "balances">> {
  const balances = await getMerchantBalances(ctx.db, merchantId, enabledCurrencies(ctx.chains));
  return { balance: balances.USDT ?? { available: 0n, reserved: 0n }, balances };
}

export async function getMerchantAccount(ctx: Context, merchant: MerchantRow): Promise<MerchantAccount> {
  return { merchant, ...(await getAccountBalances(ctx, merchant.id)) };
}
