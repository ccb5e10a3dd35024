import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { merchants } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import type { MerchantRow } from "./types.js";

/** The merchant with this id; NOT_FOUND for an unknown or malformed id alike. */
export async function findMerchant(ctx: Context, id: string, tx: Executor = ctx.db): Promise<MerchantRow> {
  if (!isUuid(id)) throw merchantNotFound();
  const [merchant] = await tx.select().from(merchants).where(eq(merchants.id, id));
  if (!merchant) throw merchantNotFound();
  return merchant;
}

export function merchantNotFound(): AppError {
  return new AppError("NOT_FOUND", "merchant not found");
}
