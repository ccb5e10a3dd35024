import type { MerchantRow } from "../../../merchants/types.js";

/** The merchant fields every admin read returns: never webhook_secret, never the key or its hash. */
export function toMerchantSummary(merchant: MerchantRow) {
  return {
    id: merchant.id,
    name: merchant.name,
    api_key_prefix: merchant.apiKeyPrefix,
    is_active: merchant.isActive,
    created_at: merchant.createdAt.toISOString(),
  };
}
