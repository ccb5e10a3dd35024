/**
 * The worker role: every background loop of the service. Each loop calls one idempotent domain
 * function, so any number of worker processes may run side by side.
 */
import { startScannerLeaders } from "../chain/scanner-leader.js";
import type { Context } from "../context.js";
import type { Loop } from "./loop.js";
import { startPaymentLoops } from "./payment-loops.js";
import { startMetricsRefresher } from "./metrics-loops.js";
import { startWebhookSender } from "./webhook-sender.js";
import { startAlertLoops } from "./alert-loops.js";
import { startPayoutLoops } from "./payout-loops.js";
import { startOutboxLoops } from "./outbox-loops.js";

export interface Workers {
  stop(): Promise<void>;
}

export async function startWorkers(ctx: Context): Promise<Workers> {
  const loops: Loop[] = [];
  // Outcome webhooks. The confirmer (same process) should call `webhookSender.wake()` after it
  // commits an outcome, so the first attempt does not wait for the next poll.
  const webhookSender = startWebhookSender(ctx);
  loops.push(webhookSender);
  loops.push(...startPaymentLoops(ctx));
  loops.push(...startPayoutLoops(ctx));
  loops.push(...startOutboxLoops(ctx));
  loops.push(startMetricsRefresher(ctx));
  loops.push(...startAlertLoops(ctx));
  // The chain scanner and confirmer: runs only in the worker holding the scanner lock.
  loops.push(...startScannerLeaders(ctx, { onOutcome: () => webhookSender.wake() }));
  ctx.log.info({ loops: loops.map((loop) => loop.name) }, "workers started");
  return {
    async stop() {
      await Promise.all(loops.map((loop) => loop.stop()));
    },
  };
}
