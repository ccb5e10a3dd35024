/**
 * What a merchant sees of itself (GET /api/v1/merchant/me, DESIGN.md 14): the authenticated merchant
 * with its ledger balance.
 */
import type { Context } from "../context.js";
import { getMerchantBalance, type MerchantBalance } from "../ledger/post-ledger.js";
import type { MerchantRow } from "./types.js";

export interface MerchantAccount {
  merchant: MerchantRow;
  balance: MerchantBalance;
}

export async function getMerchantAccount(ctx: Context, merchant: MerchantRow): Promise<MerchantAccount> {
  return { merchant, balance: await getMerchantBalance(ctx.db, merchant.id) };
}
