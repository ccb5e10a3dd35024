/**
 * The SDK's webhook receivers on real servers (node:http, Express, Fastify), each sent signed
 * requests over HTTP: a verified typed event reaches the handler once, a duplicate is answered 200
 * without calling it again, a bad signature is 400, and a failed handler releases the key so the
 * retry is processed.
 */
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import express from "express";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createExpressWebhookHandler,
  createNodeWebhookHandler,
  fastifyWebhookPlugin,
  MemoryDedupeStore,
  type WebhookDelivery,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from "@stablegate/sdk";
import { signWebhookBody } from "../../src/webhooks/signature.js";
import { outsideContract } from "../helpers/contract.js";

const SECRET = "whsec-sdk-handler-test";
let counter = 0;

function eventBody(event: WebhookEvent["event"] = "payment.confirmed"): { key: string; body: string } {
  const orderId = `0b9c6a52-4a8e-4d57-9b1f-${String(++counter).padStart(12, "0")}`;
  const body = JSON.stringify({
    event,
    order_id: orderId,
    external_id: `order-${counter}`,
    amount_expected: "10.500000",
    amount_received: event === "payment.underpaid" ? "9.000000" : "10.500000",
    currency: "USDT",
    network: "devnet",
    tx_hash: "ab".repeat(32),
    from_address: "TYBNgWfhGuNzdLtjKtxXTfskAhTbMcqbaG",
    to_address: "TVjsyZ7fYF3qLF6BQgPmTEZy1xrNNyVAAA",
    status: event.slice("payment.".length),
    timestamp: new Date().toISOString(),
  });
  return { key: `evt_${orderId}_${event}_${Date.now()}`, body };
}

async function deliver(
  url: string,
  { key, body }: { key: string; body: string },
  options: { secret?: string; timestamp?: number } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-signature": signWebhookBody(options.secret ?? SECRET, body),
      "x-idempotency-key": key,
      "x-timestamp": String(options.timestamp ?? Math.floor(Date.now() / 1000)),
    },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A handler that records what it received and can be told to fail or to hold. */
function recorder() {
  const received: { event: WebhookEvent; delivery: WebhookDelivery }[] = [];
  const state = { failNext: false, hold: undefined as Promise<void> | undefined };
  const onEvent: WebhookHandlerOptions["onEvent"] = async (event, delivery) => {
    received.push({ event, delivery });
    if (state.hold) await state.hold;
    if (state.failNext) {
      state.failNext = false;
      throw new Error("database down (internal detail)");
    }
  };
  return { received, state, onEvent };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe("node:http handler", () => {
  const rec = recorder();
  const errors: unknown[] = [];
  let url: string;
  beforeAll(async () => {
    const server = createServer(
      createNodeWebhookHandler({ secret: SECRET, onEvent: rec.onEvent, onError: (e) => errors.push(e) }),
    );
    url = await listen(server);
    closers.push(() => new Promise((done) => server.close(done)));
  });

  it("hands over the verified typed event once; a duplicate is 200 without a second call", async () => {
    const delivery = eventBody("payment.underpaid");
    expect(await deliver(url, delivery)).toEqual({ status: 200, body: { ok: true } });
    expect(rec.received).toHaveLength(1);
    const { event, delivery: meta } = rec.received[0]!;
    expect(event).toEqual(JSON.parse(delivery.body));
    expect(meta.idempotencyKey).toBe(delivery.key);
    // A retry of the same event (new X-Timestamp, same key) is acknowledged and not handled again.
    const again = await deliver(url, delivery, { timestamp: Math.floor(Date.now() / 1000) + 1 });
    expect(again).toEqual({ status: 200, body: { ok: true, duplicate: true } });
    expect(rec.received).toHaveLength(1);
  });

  it("answers 400 for a bad signature, a stale timestamp or no idempotency key, and calls nothing", async () => {
    const before = rec.received.length;
    expect(await deliver(url, eventBody(), { secret: "another-secret" })).toEqual({
      status: 400,
      body: { error: "signature mismatch" },
    });
    const stale = await deliver(url, eventBody(), { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect(stale).toEqual({ status: 400, body: { error: "timestamp outside tolerance" } });
    expect(await deliver(url, { ...eventBody(), key: "" })).toMatchObject({ status: 400 });
    const notJson = { key: "evt_x", body: "not json" };
    expect(await deliver(url, notJson)).toMatchObject({ status: 400 });
    expect(rec.received).toHaveLength(before);
  });

  it("releases the key when the handler throws, so the retry is handled; the reply hides the error", async () => {
    const delivery = eventBody();
    rec.state.failNext = true;
    expect(await deliver(url, delivery)).toEqual({ status: 500, body: { error: "handler failed" } });
    expect(errors.at(-1)).toBeInstanceOf(Error);
    expect(await deliver(url, delivery)).toEqual({ status: 200, body: { ok: true } });
    expect(await deliver(url, delivery)).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(rec.received.filter((r) => r.delivery.idempotencyKey === delivery.key)).toHaveLength(2);
  });

  it("answers 409 to a second delivery of an event still being handled, then 200 once it is done", async () => {
    const delivery = eventBody("payment.overpaid");
    let release!: () => void;
    rec.state.hold = new Promise((done) => (release = done));
    const first = deliver(url, delivery);
    await expect.poll(() => rec.received.some((r) => r.delivery.idempotencyKey === delivery.key)).toBe(true);
    expect(await deliver(url, delivery)).toMatchObject({ status: 409 });
    release();
    rec.state.hold = undefined;
    expect(await first).toEqual({ status: 200, body: { ok: true } });
    expect(await deliver(url, delivery)).toMatchObject({ status: 200, body: { duplicate: true } });
  });

  it("survives a sender that goes away mid-body, and keeps serving", async () => {
    const before = rec.received.length;
    const { port } = new URL(url);
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise((done) => socket.once("connect", done));
    socket.write(
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"event"',
    );
    await new Promise((done) => setTimeout(done, 50));
    socket.destroy();
    await new Promise((done) => setTimeout(done, 50));
    expect(await deliver(url, eventBody())).toEqual({ status: 200, body: { ok: true } });
    expect(rec.received).toHaveLength(before + 1);
  });

  it("refuses a body over the limit with 413 and other methods with 405", async () => {
    const big = { key: "evt_big", body: JSON.stringify({ pad: "x".repeat(70 * 1024) }) };
    expect((await deliver(url, big)).status).toBe(413);
    expect((await fetch(url)).status).toBe(405);
  });
});

describe("the dedupe store", () => {
  it("takes over an in-progress claim after its timeout and forgets the oldest processed keys", () => {
    let now = 0;
    const store = new MemoryDedupeStore({ maxKeys: 2, claimTimeoutMs: 1000, now: () => now });
    expect(store.claim("a")).toBe("claimed");
    expect(store.claim("a")).toBe("in_progress");
    now = 1000;
    expect(store.claim("a")).toBe("claimed");
    store.complete("a");
    expect(store.claim("a")).toBe("processed");
    for (const key of ["b", "c"]) {
      store.claim(key);
      store.complete(key);
    }
    expect(store.claim("a")).toBe("claimed");
    expect(store.claim("c")).toBe("processed");
  });
});

describe("Express", () => {
  const rec = recorder();
  let url: string;
  beforeAll(async () => {
    const app = express();
    const handler = createExpressWebhookHandler({ secret: SECRET, onEvent: rec.onEvent });
    app.post("/raw", express.raw({ type: "application/json" }), handler);
    app.post("/stream", handler);
    app.post("/parsed", express.json(), handler);
    app.use(express.json());
    app.post("/other", (req, res) => {
      res.json({ parsed: req.body });
    });
    const server = createServer(app);
    url = await listen(server);
    closers.push(() => new Promise((done) => server.close(done)));
  });

  it("verifies behind express.raw(), dedupes, and refuses a bad signature with 400", async () => {
    const delivery = eventBody();
    expect(await deliver(`${url}/raw`, delivery)).toEqual({ status: 200, body: { ok: true } });
    expect(await deliver(`${url}/raw`, delivery)).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(await deliver(`${url}/raw`, eventBody(), { secret: "wrong-secret" })).toMatchObject({
      status: 400,
    });
    expect(rec.received.map((r) => ("order_id" in r.event ? r.event.order_id : null))).toEqual([
      JSON.parse(delivery.body).order_id,
    ]);
  });

  it("reads the stream itself on a route without a body parser", async () => {
    const delivery = eventBody("payment.overpaid");
    expect(await deliver(`${url}/stream`, delivery)).toEqual({ status: 200, body: { ok: true } });
    expect(rec.received.at(-1)?.event.event).toBe("payment.overpaid");
  });

  it("fails loudly behind express.json(), whose parsed body cannot be verified", async () => {
    const before = rec.received.length;
    const reply = await fetch(`${url}/parsed`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: eventBody().body,
    });
    expect(reply.status).toBe(500);
    // Express's error page in development shows the error: it says what to change.
    expect(await reply.text()).toContain("already parsed");
    expect(rec.received).toHaveLength(before);
    // The rest of the app is untouched.
    const other = await fetch(`${url}/other`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(await other.json()).toEqual({ parsed: { a: 1 } });
  });
});

describe("Fastify", () => {
  const rec = recorder();
  let url: string;
  beforeAll(async () => {
    // The merchant's own server: its routes are not Stablegate's, so the contract check leaves it out.
    const app = outsideContract(Fastify());
    await app.register(
      fastifyWebhookPlugin({ path: "/stablegate/webhook", secret: SECRET, onEvent: rec.onEvent }),
    );
    app.post("/other", async (request) => ({ parsed: request.body }));
    url = await app.listen({ port: 0, host: "127.0.0.1" });
    closers.push(() => app.close());
  });

  it("verifies the raw body through the plugin's parser, dedupes, and refuses a bad signature", async () => {
    const delivery = eventBody();
    expect(await deliver(`${url}/stablegate/webhook`, delivery)).toEqual({ status: 200, body: { ok: true } });
    expect(await deliver(`${url}/stablegate/webhook`, delivery)).toEqual({
      status: 200,
      body: { ok: true, duplicate: true },
    });
    expect(await deliver(`${url}/stablegate/webhook`, eventBody(), { secret: "wrong-secret" })).toEqual({
      status: 400,
      body: { error: "signature mismatch" },
    });
    expect(rec.received).toHaveLength(1);
    expect(rec.received[0]!.event).toEqual(JSON.parse(delivery.body));
  });

  it("leaves the app's JSON parser alone outside the plugin", async () => {
    const other = await fetch(`${url}/other`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(await other.json()).toEqual({ parsed: { a: 1 } });
  });
});
