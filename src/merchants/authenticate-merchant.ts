import { eq } from "drizzle-orm";
import type { Context } from "../context.js";
import { merchants } from "../db/schema.js";
import { AppError } from "../errors.js";
import { localSlot } from "../local-state.js";
import { hashApiKey, looksLikeApiKey } from "./api-keys.js";
import type { MerchantRow } from "./types.js";

export interface AuthenticatedKey {
  merchant: MerchantRow;
  /** HMAC of the key: statements that re-verify the key compare against it. */
  keyHash: string;
}

/**
 * Resolves a raw API key to its merchant by HMAC lookup. UNAUTHORIZED for a missing, malformed or
 * unknown key (one message for all, so the reply does not tell which); MERCHANT_INACTIVE for a
 * suspended merchant.
 */
export async function authenticateMerchant(ctx: Context, rawKey: string | undefined): Promise<MerchantRow> {
  return (await authenticateKey(ctx, rawKey)).merchant;
}

async function authenticateKey(ctx: Context, rawKey: string | undefined): Promise<AuthenticatedKey> {
  const keyHash = keyHashOf(ctx, rawKey);
  const [merchant] = await ctx.db.select().from(merchants).where(eq(merchants.apiKeyHash, keyHash));
  if (!merchant) throw invalidKey();
  if (!merchant.isActive) throw inactive();
  return { merchant, keyHash };
}

const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;
// By key hash; `at` is ctx.clock time (ms). One per process: each api replica has its own.
const keyCache = localSlot("API key cache", () => new Map<string, { key: AuthenticatedKey; at: number }>());

/**
 * The same lookup from a per-process cache of active merchants, for the hot route whose own
 * statement re-checks the key hash and the active flag in the database (order creation). A rotated
 * key or a suspended merchant therefore still fails at once, on every replica; the cache only saves
 * the lookup round trip. Other routes must use authenticateMerchant.
 */
export async function authenticateMerchantCached(
  ctx: Context,
  rawKey: string | undefined,
): Promise<AuthenticatedKey> {
  const keyHash = keyHashOf(ctx, rawKey);
  const cache = ctx.local.get(keyCache);
  const hit = cache.get(keyHash);
  const now = ctx.clock.now().getTime();
  if (hit && now - hit.at < CACHE_TTL_MS) return hit.key;
  const key = await authenticateKey(ctx, rawKey);
  if (cache.size >= CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
  cache.set(keyHash, { key, at: now });
  return key;
}

/** Called when a statement found the cached key no longer valid; answers why with the right error. */
export async function refuseStaleKey(ctx: Context, keyHash: string): Promise<never> {
  ctx.local.get(keyCache).delete(keyHash);
  const [merchant] = await ctx.db
    .select({ isActive: merchants.isActive })
    .from(merchants)
    .where(eq(merchants.apiKeyHash, keyHash));
  throw merchant?.isActive === false ? inactive() : invalidKey();
}

function keyHashOf(ctx: Context, rawKey: string | undefined): string {
  if (rawKey === undefined || rawKey === "") {
    throw new AppError("UNAUTHORIZED", "missing X-API-Key header");
  }
  if (!looksLikeApiKey(rawKey)) throw invalidKey();
  return hashApiKey(ctx.config.apiKeyPepper, rawKey);
}

function invalidKey(): AppError {
  return new AppError("UNAUTHORIZED", "invalid API key");
}

function inactive(): AppError {
  return new AppError("MERCHANT_INACTIVE", "merchant is suspended");
}
