import { and, eq, type SQL } from "drizzle-orm";
import type { Context } from "../context.js";
import { depositAddresses, deposits } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { strip } from "./create-deposit-address.js";
import {
  selectDepositAddresses,
  selectDeposits,
  type DepositAddressView,
  type DepositView,
} from "./deposit-address-view.js";

/** Deposits shown with an address (the newest; the full list is GET /deposits). */
export const RECENT_DEPOSITS = 20;

export interface DepositAddressDetail extends DepositAddressView {
  recent_deposits: DepositView[];
}

/**
 * One static address with its newest deposits. `merchantId` scopes the merchant API (another
 * merchant's address is NOT_FOUND); the admin API passes undefined.
 */
export async function getDepositAddress(
  ctx: Context,
  merchantId: string | undefined,
  id: string,
): Promise<DepositAddressDetail & { merchant_id: string }> {
  if (!isUuid(id)) throw new AppError("NOT_FOUND", "deposit address not found");
  const scope: SQL[] = [eq(depositAddresses.id, id)];
  if (merchantId !== undefined) scope.push(eq(depositAddresses.merchantId, merchantId));
  const [found] = await selectDepositAddresses(ctx.db, ctx, and(...scope));
  if (!found) throw new AppError("NOT_FOUND", "deposit address not found");
  const recent = await selectDeposits(ctx.db, ctx, eq(deposits.depositAddressId, id), {
    limit: RECENT_DEPOSITS,
    offset: 0,
  });
  return { ...found, recent_deposits: recent.map(strip) };
}
