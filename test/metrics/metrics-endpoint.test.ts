/**
 * GET /metrics on a real app: Prometheus text with the process metrics and the stablegate_* families,
 * routes labelled by pattern, the METRICS_TOKEN guard (DESIGN.md 2) and the shared snapshot of the
 * database-derived gauges (refreshed by one worker, read by every process).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { createContext } from "../../src/context.js";
import { buildApp } from "../../src/http/app.js";
import { buildOpsApp } from "../../src/http/ops-app.js";
import { createLogger } from "../../src/logger.js";
import { createMetrics } from "../../src/metrics/metrics.js";
import { readMetricsSnapshot } from "../../src/metrics/metrics-snapshot.js";
import { refreshMetricsSnapshot } from "../../src/metrics/refresh-metrics-snapshot.js";
import { mnemonicToAccountXpub } from "@stablegate/tron/hd";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_MNEMONIC } from "../helpers/config.js";

/** The value of one sample line, e.g. sample(text, 'stablegate_orders_created_total'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("GET /metrics in development without METRICS_TOKEN", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("answers Prometheus text with process metrics and every stablegate family", async () => {
    const res = await t.app.inject({ method: "GET", url: "/metrics" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_seconds",
      "stablegate_http_request_duration_seconds",
      "stablegate_orders_created_total",
      "stablegate_order_outcomes_total",
      "stablegate_scanner_head_block",
      "stablegate_scanner_scanned_block",
      "stablegate_scanner_lag_blocks",
      "stablegate_node_calls_total",
      "stablegate_node_call_duration_seconds",
      "stablegate_webhook_deliveries_total",
      "stablegate_webhook_due_deliveries",
      "stablegate_webhook_oldest_due_age_seconds",
      "stablegate_sweeps_total",
      "stablegate_sweep_spent_trx_total",
      "stablegate_sweep_delegated_energy_total",
      "stablegate_hot_wallet_balance_trx",
      "stablegate_hot_wallet_staked_energy",
      "stablegate_address_pool_free_addresses",
      "stablegate_alerts_firing",
    ]) {
      expect(res.body, name).toContain(`# TYPE ${name} `);
    }
  });

  it("labels request durations by route pattern and status, never by the raw URL", async () => {
    const id = "7d3c1a52-1111-4a4a-9d9d-0123456789ab";
    expect((await t.app.inject({ method: "GET", url: "/api/v1/health/live" })).statusCode).toBe(200);
    expect((await t.app.inject({ method: "GET", url: `/api/v1/payments/${id}` })).statusCode).toBe(401);
    expect((await t.app.inject({ method: "GET", url: `/no/such/${id}` })).statusCode).toBe(404);
    const text = (await t.app.inject({ method: "GET", url: "/metrics" })).body;
    expect(
      sample(
        text,
        'stablegate_http_request_duration_seconds_count{method="GET",route="/api/v1/health/live",status="200"}',
      ),
    ).toBe(1);
    expect(
      sample(
        text,
        'stablegate_http_request_duration_seconds_count{method="GET",route="/api/v1/payments/:id",status="401"}',
      ),
    ).toBe(1);
    expect(
      sample(
        text,
        'stablegate_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}',
      ),
    ).toBe(1);
    expect(text).not.toContain(id);
  });

  it("labels node calls by the base URL without credentials or query", () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.observeNodeCall(
      "tron",
      "https://user:hunter2@node.example:8090/?apikey=s3cret",
      "/wallet/getnowblock",
      12,
      false,
    );
    metrics.observeNodeCall(
      "tron",
      "https://user:hunter2@node.example:8090/?apikey=s3cret",
      "/wallet/getnowblock",
      30,
      true,
    );
    return metrics.registry.metrics().then((text) => {
      expect(
        sample(
          text,
          'stablegate_node_calls_total{node="https://node.example:8090",endpoint="/wallet/getnowblock",result="ok",chain="tron"}',
        ),
      ).toBe(1);
      expect(
        sample(
          text,
          'stablegate_node_calls_total{node="https://node.example:8090",endpoint="/wallet/getnowblock",result="error",chain="tron"}',
        ),
      ).toBe(1);
      expect(text).not.toContain("hunter2");
      expect(text).not.toContain("s3cret");
    });
  });

  it("shows the database-derived gauges from the snapshot one worker refreshed, in another process", async () => {
    await fillAddressPool(t.ctx);
    const text0 = (await t.app.inject({ method: "GET", url: "/metrics" })).body;
    expect(sample(text0, "stablegate_address_pool_free_addresses")).toBeUndefined();

    const first = await refreshMetricsSnapshot(t.ctx);
    expect(first.refreshed).toBe(true);
    const free = first.snapshot?.addressPoolFree ?? 0;
    expect(free).toBeGreaterThan(0);
    // A second worker within the interval leaves the refresh to the first.
    expect((await refreshMetricsSnapshot(t.ctx)).refreshed).toBe(false);

    // An "api process": its own context and metrics on the same database, reading the row.
    const api = await createContext(t.ctx.config, {
      database: t.testDb.database,
      clock: t.clock,
      log: createLogger({ level: "silent" }),
    });
    const apiApp = await buildApp(api);
    try {
      const before = (await apiApp.inject({ method: "GET", url: "/metrics" })).body;
      expect(sample(before, "stablegate_address_pool_free_addresses")).toBeUndefined();
      await readMetricsSnapshot(api);
      const after = (await apiApp.inject({ method: "GET", url: "/metrics" })).body;
      expect(sample(after, "stablegate_address_pool_free_addresses")).toBe(free);
      expect(sample(after, "stablegate_webhook_due_deliveries")).toBe(0);
      expect(sample(after, 'stablegate_settlements{status="failed"}')).toBe(0);
      expect(sample(after, "stablegate_metrics_snapshot_age_seconds")).toBe(0);
      t.clock.advance(20_000);
      const later = (await apiApp.inject({ method: "GET", url: "/metrics" })).body;
      expect(sample(later, "stablegate_metrics_snapshot_age_seconds")).toBe(20);
      // After the interval a worker refreshes again.
      expect((await refreshMetricsSnapshot(t.ctx)).refreshed).toBe(true);
    } finally {
      await apiApp.close();
    }
  });
});

describe("GET /metrics guarded by METRICS_TOKEN", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_TOKEN: "metrics-token-0123456789" } });
  });
  afterAll(() => t.close());

  it.each([
    ["no Authorization header", undefined],
    ["a wrong token", "Bearer metrics-token-wrong"],
    ["the token without Bearer", "metrics-token-0123456789"],
  ])("answers 401 METRICS_UNAUTHORIZED with %s", async (_name, authorization) => {
    const res = await t.app.inject({
      method: "GET",
      url: "/metrics",
      headers: authorization ? { authorization } : {},
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: expect.any(String), code: "METRICS_UNAUTHORIZED" });
    expect(res.headers["www-authenticate"]).toContain("Bearer");
    expect(res.body).not.toContain("metrics-token-0123456789");
  });

  it("answers the metrics with the right bearer token", async () => {
    const res = await t.app.inject({
      method: "GET",
      url: "/metrics",
      headers: { authorization: "Bearer metrics-token-0123456789" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain("# TYPE stablegate_orders_created_total counter");
  });
});

describe("GET /metrics in production", () => {
  const production = (extra: Record<string, string> = {}) =>
    loadConfig({
      NODE_ENV: "production",
      TRON_NETWORK: "mainnet",
      TRON_NODE_URL: "http://127.0.0.1:1",
      ADMIN_PASSWORD: "a long operator password",
      SESSION_SECRET: "0123456789abcdef0123456789abcdef",
      API_KEY_PEPPER: "fedcba9876543210fedcba9876543210",
      WALLET_XPUB: mnemonicToAccountXpub(TEST_MNEMONIC),
      LOG_LEVEL: "silent",
      ...extra,
    });

  it("does not exist while METRICS_TOKEN is unset", async () => {
    const t = await createTestApp({ config: production() });
    try {
      const res = await t.app.inject({ method: "GET", url: "/metrics" });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: "NOT_FOUND" });
    } finally {
      await t.close();
    }
  });

  it("answers with the token once METRICS_TOKEN is set", async () => {
    const t = await createTestApp({ config: production({ METRICS_TOKEN: "prod-metrics-token-abcdef" }) });
    try {
      expect((await t.app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(401);
      const res = await t.app.inject({
        method: "GET",
        url: "/metrics",
        headers: { authorization: "Bearer prod-metrics-token-abcdef" },
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('stablegate_info{role="all"} 1');
    } finally {
      await t.close();
    }
  });
});

describe("the worker's ops listener", () => {
  it("serves /metrics and health, and nothing of the api", async () => {
    const t = await createTestApp();
    const worker = await createContext(t.ctx.config, {
      database: t.testDb.database,
      clock: t.clock,
      log: createLogger({ level: "silent" }),
      role: "worker",
    });
    const ops = await buildOpsApp(worker);
    try {
      expect((await ops.inject({ method: "GET", url: "/api/v1/health/live" })).json()).toEqual({
        status: "ok",
      });
      const metrics = await ops.inject({ method: "GET", url: "/metrics" });
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).toContain('stablegate_info{role="worker"} 1');
      for (const url of ["/api/v1/admin/wallet", "/api/v1/payments", "/admin", "/api/v1/openapi.json"]) {
        const reply = await ops.inject({ method: "GET", url });
        expect(reply.statusCode, url).toBe(404);
        expect(reply.json()).toMatchObject({ code: "NOT_FOUND" });
      }
    } finally {
      await ops.close();
      await t.close();
    }
  });
});
