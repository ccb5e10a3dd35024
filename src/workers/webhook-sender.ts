/**
 * The webhook-sender loop: keeps up to `concurrency` HTTP attempts in flight. Claims run ahead of
 * the sends by up to `concurrency` deliveries (`prefetch`), so a slot that frees is refilled at once
 * instead of after the next claim round trip; a slow or hanging receiver holds one slot and never
 * a whole batch. While busy it claims at least half of `concurrency` at a time: a claim is one
 * statement whatever its size. A slot frees when the response is in; the outcome is then recorded
 * in the background, batched with others (a batch may linger `recordLingerMs` for company),
 * and at most `maxUnrecorded` outcomes may wait for their transaction before the loop stops
 * claiming.
 * Any number of senders (in any number of processes) can run against one database.
 * wake() makes the loop look for due work at once (the outcome path calls it after a commit);
 * otherwise it polls every `intervalMs`.
 */
import type { Context } from "../context.js";
import {
  createWebhookDeliverer,
  type DelivererOptions,
  type WebhookDeliverer,
} from "../webhooks/deliver-webhooks.js";
import type { ClaimedDelivery } from "../webhooks/claim-due-webhooks.js";
import { isDatabaseUnavailable } from "../db/database-error.js";
import { startLoop, UNAVAILABLE_BACKOFF_MS, type Loop } from "./loop.js";

export const DEFAULT_WEBHOOK_CONCURRENCY = 64;
export const DEFAULT_WEBHOOK_POLL_MS = 50;
/**
 * How long a finished attempt waits for others to share its recording transaction. 0: under load
 * batches form anyway while the recording transactions are busy; with a 50 ms linger,
 * bench/webhooks.ts measured commit -> first attempt p99 at 593 ms against 328 ms for the sender
 * before it in the same run (41 against 52 ms without the linger).
 */
export const DEFAULT_RECORD_LINGER_MS = 0;

export interface WebhookSenderOptions extends DelivererOptions {
  /** HTTP attempts in flight at most. */
  concurrency?: number;
  /** Finished attempts waiting to be recorded at most (default 8 x concurrency). */
  maxUnrecorded?: number;
  intervalMs?: number;
  /** Smallest claim while attempts are in flight (default concurrency / 2). */
  minClaim?: number;
  /** Claimed deliveries waiting for a slot at most (default concurrency). */
  prefetch?: number;
}

export interface WebhookSender extends Loop {
  readonly deliverer: WebhookDeliverer;
  /** HTTP attempts currently in flight. */
  inFlight(): number;
}

export function startWebhookSender(ctx: Context, options: WebhookSenderOptions = {}): WebhookSender {
  const concurrency = options.concurrency ?? DEFAULT_WEBHOOK_CONCURRENCY;
  // Room for a lingering batch and the ones behind it, so recording does not hold claims back.
  const maxUnrecorded = options.maxUnrecorded ?? concurrency * 8;
  // Small enough that slow receivers holding most slots do not stall the others.
  const minClaim = options.minClaim ?? Math.max(1, Math.floor(concurrency / 2));
  const deliverer = createWebhookDeliverer(ctx, {
    ...options,
    recordLingerMs: options.recordLingerMs ?? DEFAULT_RECORD_LINGER_MS,
  });
  // A claim is one statement whatever its size, so larger claims cost less per delivery; each
  // waits one attempt at most for a slot, far inside its lease.
  const prefetch = options.prefetch ?? concurrency;
  const sending = new Set<Promise<void>>();
  const recording = new Set<Promise<void>>();
  /** Claimed, waiting for a free slot (their leases run; they wait one attempt at most). */
  const ready: ClaimedDelivery[] = [];
  let slotFreed: (() => void) | undefined;

  const track = (set: Set<Promise<void>>, work: Promise<void>) => {
    set.add(work);
    void work.finally(() => set.delete(work));
  };

  const pump = () => {
    while (sending.size < concurrency && ready.length > 0) launch(ready.shift() as ClaimedDelivery);
  };

  const launch = (delivery: ClaimedDelivery) => {
    const sent = deliverer.send(delivery).then((result) => {
      track(
        recording,
        recordWhileLeased(delivery, () => deliverer.record(delivery, result)).then(
          () => undefined,
          (error: unknown) => {
            // Recording failed for good (lease over, or not a database outage): the lease
            // expires and another attempt follows.
            ctx.log.warn(
              { err: error, deliveryId: delivery.id, orderId: delivery.orderId },
              "webhook attempt could not be recorded",
            );
          },
        ),
      );
    });
    track(sending, sent);
    void sent.finally(() => {
      pump();
      slotFreed?.();
    });
  };

  /**
   * The receiver has answered; only the database is missing (restarting, unreachable). Recording
   * is retried until shortly before the lease ends, so a database outage shorter than the lease
   * does not make the merchant receive the webhook a second time. Record is guarded by the lease
   * owner, so a late retry after another worker took the delivery over changes nothing.
   */
  const stopping = new AbortController();
  const recordWhileLeased = async (delivery: ClaimedDelivery, record: () => Promise<unknown>) => {
    for (let failures = 1; ; failures++) {
      try {
        await record();
        return;
      } catch (error) {
        const wait = Math.min(UNAVAILABLE_BACKOFF_MS, 250 * 2 ** failures);
        const leaseLeft = delivery.leaseExpiresAt.getTime() - ctx.clock.now().getTime();
        // A stopping sender does not wait for the database: the lease covers the attempt.
        if (!isDatabaseUnavailable(error) || leaseLeft < wait + 5_000 || stopping.signal.aborted) throw error;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          stopping.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
        });
      }
    }
  };

  const nextSlot = () => new Promise<void>((resolve) => (slotFreed = resolve));

  const loop = startLoop({
    name: "webhook-sender",
    log: ctx.log,
    intervalMs: options.intervalMs ?? DEFAULT_WEBHOOK_POLL_MS,
    task: async (signal) => {
      if (recording.size >= maxUnrecorded) {
        await Promise.race(recording);
        return true;
      }
      // Claim in batches: wait until a few places are free rather than claim per finished attempt.
      const room = concurrency + prefetch - sending.size - ready.length;
      if (room < minClaim) {
        await nextSlot();
        return true;
      }
      if (signal.aborted) return false;
      const limit = Math.min(room, maxUnrecorded - recording.size);
      const claimed = await deliverer.claim(limit);
      ready.push(...claimed);
      pump();
      // A full claim means more may be due: claim again as soon as there is room.
      return claimed.length === limit;
    },
  });

  return {
    name: loop.name,
    deliverer,
    wake: loop.wake,
    inFlight: () => sending.size,
    async stop() {
      await loop.stop();
      stopping.abort();
      // Claimed and in-flight attempts finish (each bounded by the attempt timeout) and are
      // recorded, so no lease is left behind to expire.
      while (sending.size > 0 || ready.length > 0) {
        pump();
        await Promise.allSettled([...sending]);
      }
      await Promise.allSettled([...recording]);
      await deliverer.close();
    },
  };
}
