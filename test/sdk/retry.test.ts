/**
 * The client's retries against a real node:http server that answers 503, 429 and resets on
 * purpose: waits honour Retry-After (seconds and HTTP-date), stay within the bounds, and only the
 * calls that are safe to repeat are repeated.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  createClient,
  parseRetryAfterMs,
  StablegateApiError,
  StablegateError,
  StablegateNetworkError,
  type RetryEvent,
} from "@stablegate/sdk";
import { closedPort, json, startScriptedServer, type ScriptedServer } from "./helpers.js";

const ORDER = {
  id: "0b9c6a52-4a8e-4d57-9b1f-6f7f2d0f4f15",
  external_id: "order-1",
  amount_expected: "10.500000",
};
const PARAMS = {
  external_id: "order-1",
  amount: "10.5",
  currency: "USDT" as const,
  callback_url: "https://shop.example.com/hook",
};

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function caught(promise: Promise<unknown>): Promise<StablegateError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StablegateError);
  return error as StablegateError;
}

describe("createPayment retries", () => {
  it("waits the Retry-After seconds of a 503, then returns the order", async () => {
    server = await startScriptedServer((n, _a, res) =>
      n === 0
        ? json(
            res,
            503,
            { error: "database unavailable", code: "SERVICE_UNAVAILABLE" },
            { "retry-after": "1" },
          )
        : json(res, 201, ORDER),
    );
    const retries: RetryEvent[] = [];
    const client = createClient({
      baseUrl: server.url,
      apiKey: "sg_test_x",
      baseDelayMs: 10,
      onRetry: (e) => retries.push(e),
    });
    expect(await client.createPayment(PARAMS)).toEqual(ORDER);
    const [first, second] = server.arrivals;
    // 5 ms of slack: timers may fire a millisecond early against Date.now(); ignoring the header
    // would retry after the 5-10 ms backoff.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1000 - 5);
    // The same request again: same body, so the API answers the same order (idempotent by external_id).
    expect(second!.body).toBe(first!.body);
    expect(JSON.parse(second!.body)).toEqual(PARAMS);
    expect(second!.headers["x-api-key"]).toBe("sg_test_x");
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, delayMs: 1000 });
    expect(retries[0]!.error).toMatchObject({
      status: 503,
      code: "SERVICE_UNAVAILABLE",
      retryAfterSeconds: 1,
    });
  });

  it("waits until the HTTP-date of a 429's Retry-After", async () => {
    let until = 0;
    server = await startScriptedServer((n, _a, res) => {
      if (n > 0) return json(res, 201, ORDER);
      // HTTP-dates have whole seconds: 2 s ahead, so the wait is between 1 and 2 s.
      const date = new Date(Date.now() + 2000).toUTCString();
      until = Date.parse(date);
      json(res, 429, { error: "rate limit exceeded", code: "RATE_LIMITED" }, { "retry-after": date });
    });
    const client = createClient({ baseUrl: server.url, apiKey: "k", baseDelayMs: 10 });
    expect(await client.createPayment(PARAMS)).toEqual(ORDER);
    expect(server.arrivals).toHaveLength(2);
    expect(server.arrivals[1]!.at).toBeGreaterThanOrEqual(until - 5);
  });

  it("retries a connection reset (no answer) and a network error, within the attempt bound", async () => {
    server = await startScriptedServer((n, _a, res, req) => {
      if (n < 2) req.socket.destroy();
      else json(res, 200, ORDER);
    });
    const client = createClient({ baseUrl: server.url, apiKey: "k", baseDelayMs: 10, retries: 2 });
    expect(await client.createPayment(PARAMS)).toEqual(ORDER);
    expect(server.arrivals).toHaveLength(3);
  });

  it("gives up after `retries` more attempts with backoff that grows and stays under maxDelayMs", async () => {
    server = await startScriptedServer((_n, _a, res) =>
      json(res, 503, { error: "unavailable", code: "SERVICE_UNAVAILABLE" }, { "x-request-id": "req-503" }),
    );
    const delays: number[] = [];
    const client = createClient({
      baseUrl: server.url,
      apiKey: "k",
      retries: 4,
      baseDelayMs: 20,
      maxDelayMs: 60,
      onRetry: (e) => delays.push(e.delayMs),
    });
    const error = await caught(client.createPayment(PARAMS));
    expect(error).toBeInstanceOf(StablegateApiError);
    expect(error).toMatchObject({
      status: 503,
      code: "SERVICE_UNAVAILABLE",
      attempts: 5,
      requestId: "req-503",
      kind: "api",
    });
    expect(server.arrivals).toHaveLength(5);
    expect(delays).toHaveLength(4);
    // Equal jitter: step n is min(60, 20 * 2^n); the wait lies in [step / 2, step].
    const steps = [20, 40, 60, 60];
    delays.forEach((d, i) => {
      expect(d).toBeGreaterThanOrEqual(steps[i]! / 2);
      expect(d).toBeLessThanOrEqual(steps[i]!);
    });
  });

  it("fails at once when Retry-After is longer than maxDelayMs, saying when to come back", async () => {
    server = await startScriptedServer((_n, _a, res) =>
      json(res, 429, { error: "rate limit exceeded", code: "RATE_LIMITED" }, { "retry-after": "120" }),
    );
    const client = createClient({ baseUrl: server.url, apiKey: "k", maxDelayMs: 5_000 });
    const error = await caught(client.createPayment(PARAMS));
    expect(error).toMatchObject({ status: 429, code: "RATE_LIMITED", retryAfterSeconds: 120, attempts: 1 });
    expect(server.arrivals).toHaveLength(1);
  });

  it("does not retry other errors (409 conflict) and keeps the API's code and message", async () => {
    server = await startScriptedServer((_n, _a, res) =>
      json(res, 409, {
        error: "external_id order-1 was used with another amount",
        code: "EXTERNAL_ID_CONFLICT",
      }),
    );
    const client = createClient({ baseUrl: server.url, apiKey: "k", baseDelayMs: 10 });
    const error = await caught(client.createPayment(PARAMS));
    expect(error).toMatchObject({
      status: 409,
      code: "EXTERNAL_ID_CONFLICT",
      message: "external_id order-1 was used with another amount",
    });
    expect(server.arrivals).toHaveLength(1);
  });

  it("reports a proxy's non-JSON error page as INVALID_RESPONSE", async () => {
    server = await startScriptedServer((_n, _a, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html>bad gateway</html>");
    });
    const client = createClient({ baseUrl: server.url, apiKey: "k" });
    const error = await caught(client.getPayment("x"));
    expect(error).toMatchObject({ status: 502, code: "INVALID_RESPONSE" });
  });
});

describe("network errors", () => {
  it("a closed port is a StablegateNetworkError after every attempt", async () => {
    const port = await closedPort();
    const retries: RetryEvent[] = [];
    const client = createClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: "k",
      retries: 2,
      baseDelayMs: 10,
      onRetry: (e) => retries.push(e),
    });
    const error = await caught(client.createPayment(PARAMS));
    expect(error).toBeInstanceOf(StablegateNetworkError);
    expect(error).toMatchObject({ status: null, code: "NETWORK_ERROR", kind: "network", attempts: 3 });
    expect(error.message).toContain("ECONNREFUSED");
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it("a server that never answers is a TIMEOUT", async () => {
    server = await startScriptedServer(() => undefined);
    const client = createClient({ baseUrl: server.url, apiKey: "k", timeoutMs: 200, retries: 0 });
    const error = await caught(client.getPayment("x"));
    expect(error).toMatchObject({ status: null, code: "TIMEOUT" });
  });
});

describe("simulatePayment (each call sends a transfer)", () => {
  it("is not repeated after a lost answer, since the transfer may have been sent", async () => {
    server = await startScriptedServer((_n, _a, _res, req) => req.socket.destroy());
    const client = createClient({ baseUrl: server.url, apiKey: "k", baseDelayMs: 10 });
    const error = await caught(client.simulatePayment("abc"));
    expect(error).toBeInstanceOf(StablegateNetworkError);
    expect(server.arrivals).toHaveLength(1);
  });

  it("is repeated after a 429, which refused it before anything was sent", async () => {
    const paid = { order_id: "abc", tx_hash: "ab".repeat(32), amount: "1.000000" };
    server = await startScriptedServer((n, _a, res) =>
      n === 0
        ? json(res, 429, { error: "slow down", code: "RATE_LIMITED" }, { "retry-after": "0" })
        : json(res, 202, paid),
    );
    const client = createClient({ baseUrl: server.url, apiKey: "k", baseDelayMs: 10 });
    expect(await client.simulatePayment("abc", { amount: "1" })).toEqual(paid);
    expect(server.arrivals.map((a) => [a.method, a.url, a.body])).toEqual([
      ["POST", "/api/v1/payments/abc/simulate", '{"amount":"1"}'],
      ["POST", "/api/v1/payments/abc/simulate", '{"amount":"1"}'],
    ]);
  });
});

describe("parseRetryAfterMs", () => {
  it("reads delta-seconds and HTTP-dates, and ignores anything else", () => {
    const now = Date.parse("2026-11-23T12:00:00Z");
    expect(parseRetryAfterMs("7", now)).toBe(7000);
    expect(parseRetryAfterMs("Mon, 23 Nov 2026 12:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfterMs("Mon, 23 Nov 2026 11:00:00 GMT", now)).toBe(0);
    for (const bad of [undefined, null, "", "-1", "1.5", "12:00", "soon"]) {
      expect(parseRetryAfterMs(bad, now), String(bad)).toBeUndefined();
    }
  });
});
