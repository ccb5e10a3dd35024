/**
 * The house account: the ledger's owner of money that reached the gateway for no merchant (a stray
 * transfer, DESIGN.md 13) and is refunded (DESIGN.md 14). It is a merchants row with a fixed id,
 * created at the first refund of a stray transfer, inactive (no API key can act as it: the stored
 * key hash is of a random key nobody holds) and named so on the dashboard. Its balance is
 * credited with the whole stray when the stray is first refunded, and its refunds reserve, release
 * and settle like any merchant's; check-ledger recounts it from the strays resolved `refunded`.
 * Its webhook_secret signs the refund.* webhooks of stray refunds created with a callback_url: an
 * operator who wants them sets it through the admin merchant update.
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import type { Executor } from "../db/connection.js";
import { hashApiKey } from "../merchants/api-keys.js";

export const HOUSE_MERCHANT_ID = "00000000-0000-7000-8000-000000000000";
export const HOUSE_MERCHANT_NAME = "House account (refunds of stray transfers)";

/** Creates the house account's merchants row once (a no-op afterwards, also under races). */
export async function ensureHouseAccount(ctx: Context, tx: Executor): Promise<void> {
  const now = ctx.clock.now().toISOString();
  const keyHash = hashApiKey(ctx.config.apiKeyPepper, `house_${randomBytes(32).toString("base64url")}`);
  await tx.execute(
    sql`INSERT INTO merchants (id, name, api_key_hash, api_key_prefix, webhook_secret, is_active, created_at, updated_at)
        VALUES (${HOUSE_MERCHANT_ID}::uuid, ${HOUSE_MERCHANT_NAME}, ${keyHash}, 'house', ${randomBytes(32).toString("hex")},
                false, ${now}::timestamptz, ${now}::timestamptz)
        ON CONFLICT (id) DO NOTHING`,
  );
}
