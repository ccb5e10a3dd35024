/**
 * Webhook test fixtures: merchants and orders inserted with Drizzle, outcomes reached through the
 * transition table and the outbox exactly the way the confirmer does it (one transaction:
 * transitionOrder + enqueueOutcomeWebhook), and a real node:http receiver that checks nothing by
 * itself but records raw bytes, headers and arrival times for the tests to check.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { eq } from "drizzle-orm";
import { createContext, type Context } from "../../src/context.js";
import { createLogger } from "../../src/logger.js";
import { FakeClock } from "../helpers/clock.js";
import { testConfig } from "../helpers/config.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import type { Executor } from "../../src/db/connection.js";
import { merchants, orders } from "../../src/db/schema.js";
import { enqueueOutcomeWebhook, type OutcomeEvent } from "../../src/webhooks/enqueue-webhook.js";
import { outcomeEvent, outcomeFor, type OrderRow, transitionOrder } from "../../src/orders/transitions.js";

export interface WebhookTestContext {
  ctx: Context;
  clock: FakeClock;
  testDb: TestDatabase;
  close(): Promise<void>;
}

/** A fresh database, a FakeClock and a context; `env` overrides the test config. */
export async function createWebhookTestContext(
  env: Record<string, string> = {},
  options: { poolSize?: number } = {},
): Promise<WebhookTestContext> {
  const testDb = await createTestDatabase(options);
  const clock = new FakeClock();
  const ctx = await createContext(testConfig(env), {
    database: testDb.database,
    clock,
    log: createLogger({ level: "silent" }),
  });
  return { ctx, clock, testDb, close: () => testDb.drop() };
}

export interface MerchantFixture {
  id: string;
  secret: string;
}

export async function createMerchant(ctx: Context, secret = `whsec_${randomBytes(12).toString("hex")}`) {
  const id = randomUUID();
  const now = ctx.clock.now();
  await ctx.db.insert(merchants).values({
    id,
    name: `merchant ${id.slice(0, 8)}`,
    apiKeyHash: randomBytes(32).toString("hex"),
    apiKeyPrefix: "sg_test_abcdef",
    webhookSecret: secret,
    isActive: true,
    createdAt: now,
    updatedAt: now,
  });
  return { id, secret } satisfies MerchantFixture;
}

let addressCounter = 0;

export async function createOrder(
  ctx: Context,
  merchant: MerchantFixture,
  options: { callbackUrl: string; amountExpected?: bigint; externalId?: string },
): Promise<OrderRow> {
  const now = ctx.clock.now();
  addressCounter += 1;
  const [order] = await ctx.db
    .insert(orders)
    .values({
      id: randomUUID(),
      merchantId: merchant.id,
      externalId: options.externalId ?? `ext-${randomBytes(6).toString("hex")}`,
      amountExpected: options.amountExpected ?? 10_000_000n,
      network: ctx.config.tronNetwork,
      status: "pending",
      address: `TTestAddress${String(addressCounter).padStart(22, "0")}`,
      callbackUrl: options.callbackUrl,
      expiresAt: new Date(now.getTime() + 1800_000),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return order as OrderRow;
}

/** n orders of one merchant with their first outcome (payment.confirmed) enqueued. */
export async function createConfirmedOrders(
  ctx: Context,
  merchant: MerchantFixture,
  callbackUrl: string,
  count: number,
): Promise<string[]> {
  const now = ctx.clock.now();
  const rows = Array.from({ length: count }, () => {
    addressCounter += 1;
    return {
      id: randomUUID(),
      merchantId: merchant.id,
      externalId: `ext-${randomBytes(8).toString("hex")}`,
      amountExpected: 10_000_000n,
      network: ctx.config.tronNetwork,
      // Inserted as already detected (the scanner's part); the outcome goes through the real path.
      status: "detected" as const,
      txHash: randomBytes(32).toString("hex"),
      fromAddress: "TPayerAddress000000000000000000001",
      detectedAt: now,
      address: `TTestAddress${String(addressCounter).padStart(22, "0")}`,
      callbackUrl,
      expiresAt: new Date(now.getTime() + 1800_000),
      createdAt: now,
      updatedAt: now,
    };
  });
  for (let i = 0; i < rows.length; i += 500) await ctx.db.insert(orders).values(rows.slice(i, i + 500));
  const ids = rows.map((row) => row.id);
  // A few outcome transactions at a time, as several confirmer passes would commit them.
  for (let i = 0; i < ids.length; i += 8) {
    await Promise.all(ids.slice(i, i + 8).map((id) => confirmPayment(ctx, id, 10_000_000n)));
  }
  return ids;
}

async function loadOrder(tx: Executor, id: string): Promise<OrderRow> {
  const [order] = await tx.select().from(orders).where(eq(orders.id, id)).for("update");
  if (!order) throw new Error(`order ${id} not found`);
  return order;
}

export interface OutcomeFixture {
  order: OrderRow;
  deliveryId: string;
  event: OutcomeEvent;
}

/**
 * Credits `amount` to the order and confirms it the way the confirmer does: pending -> detected,
 * then detected -> outcome (or outcome -> new outcome with additional_payment), and the outcome
 * webhook enqueued in the same transaction.
 */
export async function confirmPayment(
  ctx: Context,
  orderId: string,
  amount: bigint,
  options: { txHash?: string; fromAddress?: string | null } = {},
): Promise<OutcomeFixture> {
  return ctx.db.transaction(async (tx) => {
    let order = await loadOrder(tx, orderId);
    const txHash = options.txHash ?? randomBytes(32).toString("hex");
    const fromAddress =
      options.fromAddress === undefined ? "TPayerAddress000000000000000000001" : options.fromAddress;
    if (order.status === "pending") {
      ({ order } = await transitionOrder(ctx, tx, {
        order,
        to: "detected",
        event: "payment_detected",
        payload: { tx_hash: txHash },
        patch: { txHash, fromAddress, detectedAt: ctx.clock.now() },
      }));
    }
    const received = order.amountReceived + amount;
    const status = outcomeFor(received, order.amountExpected);
    const firstOutcome = order.status === "detected";
    const transition = await transitionOrder(ctx, tx, {
      order,
      to: status,
      event: firstOutcome ? outcomeEvent(status) : "additional_payment",
      payload: { amount_received: received.toString() },
      patch: { amountReceived: received, confirmedAt: ctx.clock.now() },
    });
    const event = `payment.${status}` as OutcomeEvent;
    const deliveryId = await enqueueOutcomeWebhook(ctx, tx, {
      order: transition.order,
      event,
      orderEventId: transition.eventId,
      eventCreatedAt: transition.eventCreatedAt,
    });
    return { order: transition.order, deliveryId, event };
  });
}

/** Puts an order straight into a status without an outcome (for 409 checks). */
export async function moveOrderTo(ctx: Context, orderId: string, status: "detected" | "expired") {
  return ctx.db.transaction(async (tx) => {
    const order = await loadOrder(tx, orderId);
    return transitionOrder(ctx, tx, {
      order,
      to: status,
      event: status === "detected" ? "payment_detected" : "order_expired",
    });
  });
}

// ---------------------------------------------------------------------------------------------
// A real HTTP receiver.

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The raw bytes as they came off the wire. */
  body: Buffer;
  receivedAt: number;
}

/** What the receiver does with the n-th request (0-based). */
export type Behaviour =
  | { kind: "status"; status: number; headers?: Record<string, string>; body?: string | Buffer }
  | { kind: "hang" }
  /** 200 headers and a first chunk, then the body never ends. */
  | { kind: "stall-body" }
  | { kind: "destroy" };

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Resolves when `count` requests have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(
  behave: (request: ReceivedRequest, index: number) => Behaviour = () => ({ kind: "status", status: 200 }),
  options: { host?: string; port?: number } = {},
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const received: ReceivedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
        receivedAt: Date.now(),
      };
      const index = requests.length;
      requests.push(received);
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) waiter.resolve();
      const behaviour = behave(received, index);
      switch (behaviour.kind) {
        case "status":
          res.writeHead(behaviour.status, behaviour.headers ?? {});
          res.end(behaviour.body ?? "");
          break;
        case "hang":
          break;
        case "stall-body":
          res.writeHead(200, { "content-type": "text/plain", "content-length": "1000" });
          res.write("partial");
          break;
        case "destroy":
          req.socket.destroy();
          break;
      }
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/hooks`,
    port,
    requests,
    waitFor(count, timeoutMs = 20_000) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${count} requests`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
