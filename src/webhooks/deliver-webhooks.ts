/**
 * The webhook delivery engine of one worker: claim due deliveries, POST each outside any
 * transaction, record the outcome. The worker loop (workers/webhook-sender.ts) keeps a bounded
 * number of attempts in flight; tests drive deliverDue() step by step with a fake clock.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Dispatcher } from "undici";
import type { Context } from "../context.js";
import { newId } from "../ids.js";
import { claimDueWebhooks, type ClaimedDelivery } from "./claim-due-webhooks.js";
import { type AttemptRecord, recordWebhookAttempts, type RecordOutcome } from "./record-webhook-attempt.js";
import {
  createWebhookDispatcher,
  sendWebhook,
  WEBHOOK_TIMEOUT_MS,
  type AttemptResult,
} from "./send-webhook.js";
import type { Resolver } from "./ssrf.js";

export interface DelivererOptions {
  /** Per-attempt budget. Only tests lower it; production always uses the SPEC's 10 s. */
  timeoutMs?: number;
  /** How long a claim is held; must exceed timeoutMs plus the time to record the outcome. */
  leaseMs?: number;
  /** Identifies this worker in lease_owner. */
  workerId?: string;
  /** Own dispatcher (closed by the caller); default: a guarded Agent owned by the deliverer. */
  dispatcher?: Dispatcher;
  /** DNS resolver for the SSRF guard of the default dispatcher (tests). */
  resolver?: Resolver;
  /** Attempts recorded per transaction at most (default RECORD_BATCH_SIZE). */
  recordBatchSize?: number;
  /** Recording transactions in flight at most (default RECORD_FLUSHES). */
  recordFlushes?: number;
  /**
   * How long a finished attempt may wait for others to share its recording transaction (default
   * 0: recorded at once when a transaction is free). A batch also goes when it is full.
   */
  recordLingerMs?: number;
}

export interface DeliveryReport {
  delivery: ClaimedDelivery;
  result: AttemptResult;
  outcome: RecordOutcome;
}

export interface WebhookDeliverer {
  readonly workerId: string;
  /** Claims up to `limit` due deliveries under a fresh lease token. */
  claim(limit: number): Promise<ClaimedDelivery[]>;
  /** The HTTP part of an attempt only. Never throws. */
  send(delivery: ClaimedDelivery): Promise<AttemptResult>;
  /** Records the result of send() (batched with other attempts finishing at the same time). */
  record(delivery: ClaimedDelivery, result: AttemptResult): Promise<DeliveryReport>;
  /** send() then record(). Never throws for HTTP failures. */
  attempt(delivery: ClaimedDelivery): Promise<DeliveryReport>;
  /** Claims up to `limit` due deliveries, attempts them all concurrently, waits for the results. */
  deliverDue(limit?: number): Promise<DeliveryReport[]>;
  close(): Promise<void>;
}

export const DEFAULT_LEASE_MS = 60_000;
/** Attempts recorded per transaction at most, and recording transactions in flight at most. */
export const RECORD_BATCH_SIZE = 256;
export const RECORD_FLUSHES = 2;

interface Pending extends AttemptRecord {
  resolve(outcome: RecordOutcome): void;
  reject(error: unknown): void;
}

/**
 * Records attempts as they finish. A batch goes when it is full, or once its oldest attempt has
 * waited `lingerMs`; while `flushes` recording transactions are busy, finishing attempts queue up
 * and go in the next one. Under load many deliveries share one commit and one statement per step:
 * a transaction's cost is mostly per statement, so a batch of 100 costs the database and this
 * process a fraction per delivery of a batch of 10.
 */
function createRecorder(
  ctx: Context,
  batchSize: number,
  flushes: number,
  lingerMs: number,
): (record: AttemptRecord) => Promise<RecordOutcome> {
  const queue: Pending[] = [];
  let flushing = 0;
  /** The oldest queued attempt has waited long enough (or there is no lingering). */
  let ripe = false;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    while (flushing < flushes && queue.length > 0 && (ripe || queue.length >= batchSize)) {
      const batch = queue.splice(0, batchSize);
      // What is left over is older than anything that arrives next: it goes at the next chance.
      if (queue.length === 0) ripe = lingerMs <= 0;
      flushing += 1;
      recordWebhookAttempts(ctx, batch)
        .then(
          (outcomes) => batch.forEach((item, i) => item.resolve(outcomes[i] as RecordOutcome)),
          (error: unknown) => batch.forEach((item) => item.reject(error)),
        )
        .finally(() => {
          flushing -= 1;
          flush();
        });
    }
  };
  return (record) =>
    new Promise<RecordOutcome>((resolve, reject) => {
      queue.push({ ...record, resolve, reject });
      if (lingerMs <= 0) ripe = true;
      else if (!ripe && timer === undefined) {
        timer = setTimeout(() => {
          timer = undefined;
          ripe = queue.length > 0;
          flush();
        }, lingerMs);
      }
      flush();
    });
}

export function defaultWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

export function createWebhookDeliverer(ctx: Context, options: DelivererOptions = {}): WebhookDeliverer {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const leaseMs = options.leaseMs ?? Math.max(ctx.config.workerLeaseMs ?? DEFAULT_LEASE_MS, timeoutMs * 3);
  const workerId = options.workerId ?? defaultWorkerId();
  const ownsDispatcher = options.dispatcher === undefined;
  const dispatcher =
    options.dispatcher ??
    createWebhookDispatcher({
      allowPrivateNetworks: ctx.config.webhookAllowPrivateNetworks,
      timeoutMs,
      resolver: options.resolver,
    });

  const record = createRecorder(
    ctx,
    options.recordBatchSize ?? RECORD_BATCH_SIZE,
    options.recordFlushes ?? RECORD_FLUSHES,
    options.recordLingerMs ?? 0,
  );
  const claim = (limit: number) =>
    claimDueWebhooks(ctx, { leaseOwner: `${workerId}/${newId()}`, leaseMs, limit });

  const send = (delivery: ClaimedDelivery): Promise<AttemptResult> =>
    sendWebhook(
      {
        url: delivery.url,
        body: delivery.payload,
        secret: delivery.secret,
        idempotencyKey: delivery.idempotencyKey,
        at: ctx.clock.now(),
      },
      { dispatcher, timeoutMs },
    );

  const recordResult = async (delivery: ClaimedDelivery, result: AttemptResult): Promise<DeliveryReport> => {
    const outcome = await record({ claim: delivery, result });
    const fields = {
      deliveryId: delivery.id,
      orderId: delivery.orderId,
      attempt: delivery.attempts + 1,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      outcome,
    };
    if (result.success) {
      if (ctx.log.isLevelEnabled("debug")) ctx.log.debug(fields, "webhook delivered");
    } else ctx.log.info({ ...fields, error: result.error }, "webhook attempt failed");
    return { delivery, result, outcome };
  };

  const attempt = async (delivery: ClaimedDelivery) => recordResult(delivery, await send(delivery));

  return {
    workerId,
    claim,
    send,
    record: recordResult,
    attempt,
    async deliverDue(limit = 100) {
      const claimed = await claim(limit);
      return Promise.all(claimed.map(attempt));
    },
    async close() {
      if (ownsDispatcher) await dispatcher.close();
    },
  };
}
