import type { merchants } from "../db/schema.js";

export type MerchantRow = typeof merchants.$inferSelect;
