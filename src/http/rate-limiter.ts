/**
 * In-process token bucket per key (the merchant id): `perMinute` requests in a burst, refilled
 * evenly over the minute. Per process by design: behind N api replicas the effective limit is N
 * times higher, which is acceptable for abuse protection and needs no shared store on the hot path.
 */
import type { Clock } from "../clock.js";

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Whole seconds until one request is allowed again (when refused). */
  retryAfterSeconds: number;
}

const MAX_BUCKETS = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly clock: Clock,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  take(key: string): RateLimitDecision {
    const now = this.clock.now().getTime();
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, updatedAt: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs);
    bucket.updatedAt = now;
    if (!this.buckets.has(key)) {
      if (this.buckets.size >= MAX_BUCKETS) this.prune(now);
      this.buckets.set(key, bucket);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    const waitMs = (1 - bucket.tokens) / this.refillPerMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /** Drops buckets that have refilled completely: forgetting them changes no decision. */
  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs >= this.perMinute) {
        this.buckets.delete(key);
      }
    }
  }
}
