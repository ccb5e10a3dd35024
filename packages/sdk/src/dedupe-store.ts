/**
 * Where the webhook handler remembers X-Idempotency-Keys. Delivery is at least once, so the same
 * event can arrive again (a retry after a lost 2xx, an operator's re-send); the store makes sure
 * your handler runs once per event that succeeded, and again for an event whose handler failed.
 */

/**
 * - "claimed": this caller now owns the key; run the handler, then `complete` or `release` it.
 * - "processed": a handler already succeeded for this key; answer 2xx and do nothing.
 * - "in_progress": another delivery of the same event is being handled right now; the handler
 *   answers 409, so Stablegate tries again later (answering 2xx would lose the event if that other
 *   handler then failed).
 */
export type ClaimResult = "claimed" | "processed" | "in_progress";

/**
 * Back it with your database for more than one process or across restarts: a table with the key
 * as PRIMARY KEY, `claim` an INSERT ... ON CONFLICT that also takes over an in-progress claim
 * older than a few minutes (its process died), `complete` an UPDATE, `release` a DELETE of an
 * in-progress row (docs/sdk.md shows one for PostgreSQL). Each method may be sync or async.
 */
export interface WebhookDedupeStore {
  /** Atomically claim `key` (two concurrent claims of one key: only one gets "claimed"). */
  claim(key: string): ClaimResult | Promise<ClaimResult>;
  /** The handler succeeded: `key` is processed for good. */
  complete(key: string): void | Promise<void>;
  /** The handler failed: forget the claim, so the next delivery of `key` is handled. */
  release(key: string): void | Promise<void>;
}

export interface MemoryDedupeStoreOptions {
  /** Processed keys kept, oldest forgotten first (default 10,000). */
  maxKeys?: number;
  /** An in-progress claim older than this is taken over (default 5 minutes). */
  claimTimeoutMs?: number;
  now?: () => number;
}

/**
 * The default store: one process's memory. Good for development and a single instance; it forgets
 * everything on restart, so a redelivery after a restart runs the handler again (make the handler's
 * effect idempotent by order_id as well, or use a database store).
 */
export class MemoryDedupeStore implements WebhookDedupeStore {
  private readonly processed = new Map<string, true>();
  private readonly claims = new Map<string, number>();
  private readonly maxKeys: number;
  private readonly claimTimeoutMs: number;
  private readonly now: () => number;

  constructor(options: MemoryDedupeStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 10_000;
    this.claimTimeoutMs = options.claimTimeoutMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  claim(key: string): ClaimResult {
    if (this.processed.has(key)) return "processed";
    const since = this.claims.get(key);
    if (since !== undefined && this.now() - since < this.claimTimeoutMs) return "in_progress";
    this.claims.set(key, this.now());
    return "claimed";
  }

  complete(key: string): void {
    this.claims.delete(key);
    this.processed.set(key, true);
    // Maps iterate in insertion order: the first key is the oldest.
    while (this.processed.size > this.maxKeys) {
      const oldest = this.processed.keys().next().value as string;
      this.processed.delete(oldest);
    }
  }

  release(key: string): void {
    this.claims.delete(key);
  }
}
