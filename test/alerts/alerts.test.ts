import { createHmac } from "node:crypto";
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DevnetListener } from "@stablegate/devnet";
import { deliverDueAlerts, alertRetryDelayMs } from "../../src/alerts/deliver-alerts.js";
import { evaluateAlerts } from "../../src/alerts/evaluate-alerts.js";
import { publishAuditHead } from "../../src/alerts/publish-audit-head.js";
import { appendAudit } from "../../src/audit/append-audit.js";
import { formatAuditHead, readAuditHead } from "../../src/audit/audit-head.js";
import { queryRows } from "../../src/db/query-rows.js";
import { buildApp } from "../../src/http/app.js";
import { createLogger } from "../../src/logger.js";
import { refreshMetricsSnapshot } from "../../src/metrics/refresh-metrics-snapshot.js";
import { newId } from "../../src/ids.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { adminCookie } from "../helpers/admin.js";
import { startReceiver, type ReceivedRequest, type Receiver } from "../webhooks/fixtures.js";
import { startChainTest, type ChainTest } from "../chain/helpers.js";

const BOT_TOKEN = "123456789:AAH-test-bot-token-never-in-logs";
const CHAT_ID = "-100424242";
const SECRET = "alert-webhook-secret-0123456789";

let t: ChainTest;
let app: FastifyInstance;
let cookie: string;
let hook: Receiver;
let hookPort: number;
let telegram: Receiver;
let node: DevnetListener;
let hot: { address: string };
const logs: string[] = [];
let hookUp = true;

function telegramAnswer(r: ReceivedRequest) {
  const body = JSON.parse(r.body.toString()) as { chat_id?: string; text?: string };
  if (r.url !== `/bot${BOT_TOKEN}/sendMessage` || body.chat_id !== CHAT_ID || !body.text) {
    return {
      kind: "status" as const,
      status: 404,
      body: '{"ok":false,"error_code":404,"description":"Not Found"}',
    };
  }
  return {
    kind: "status" as const,
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      ok: true,
      result: { message_id: 1, chat: { id: Number(CHAT_ID) }, text: body.text },
    }),
  };
}

beforeAll(async () => {
  hook = await startReceiver(() =>
    hookUp ? { kind: "status", status: 200 } : { kind: "status", status: 503 },
  );
  hookPort = hook.port;
  telegram = await startReceiver(telegramAnswer);
  const account = await TronWeb.createAccount();
  hot = { address: account.address.base58 };
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  t = await startChainTest({
    devnet: { extraPorts: [0] },
    nodeUrls: (d) => d.listeners[1]?.url as string,
    log: createLogger({ level: "debug", destination: sink }),
    env: {
      ALERT_WEBHOOK_URL: hook.url,
      ALERT_WEBHOOK_SECRET: SECRET,
      TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      TELEGRAM_CHAT_ID: CHAT_ID,
      TELEGRAM_API_URL: telegram.url.replace(/\/hooks$/, ""),
      ALERT_SCANNER_LAG_BLOCKS: "5",
      ALERT_NODE_DOWN_SECONDS: "60",
      ALERT_POOL_MIN_FREE: "10",
      POOL_MIN_FREE: "20",
      HOT_WALLET_ADDRESS: hot.address,
      HOT_WALLET_ALERT_TRX: "100",
    },
  });
  node = t.devnet.listeners[1] as DevnetListener;
  app = await buildApp(t.ctx);
  await app.ready();
  cookie = await adminCookie(app);
  await t.scanner.sync();
});
afterAll(async () => {
  await app.close();
  await t.close();
  await hook.close();
  await telegram.close();
});

const evaluate = () => evaluateAlerts(t.ctx, { headFreshMs: 0 });
const deliver = () => deliverDueAlerts(t.ctx, { timeoutMs: 3000 });

async function firing(): Promise<string[]> {
  const rows = await queryRows<{ alert: string }>(
    t.ctx.db,
    sql`SELECT alert FROM alerts WHERE kind = 'condition' AND state = 'firing' ORDER BY alert`,
  );
  return rows.map((r) => r.alert);
}

type Body = {
  alert: string;
  severity: string;
  state: string;
  text: string;
  details: Record<string, unknown>;
  audit_head?: string | null;
  at: string;
};
const hookBodies = (): Body[] => hook.requests.map((r) => JSON.parse(r.body.toString()) as Body);
const sent = (alert: string, state: string) =>
  hookBodies().filter((b) => b.alert === alert && b.state === state);
const telegramTexts = () =>
  telegram.requests.map((r) => (JSON.parse(r.body.toString()) as { text: string }).text);

async function refreshSnapshot(): Promise<void> {
  t.clock.advance(60_000);
  await refreshMetricsSnapshot(t.ctx);
}

describe("operator alerts", () => {
  it("fires the pool and hot-wallet conditions once, delivers them signed to the webhook and to Telegram", async () => {
    await t.devnetPost("/devnet/fund", { address: hot.address, trx: "40" });
    await refreshSnapshot();
    const first = await evaluate();
    expect(first.fired.sort()).toEqual(["hot_wallet_low", "pool_low"]);
    expect(await firing()).toEqual(["hot_wallet_low", "pool_low"]);
    // No repeats while the conditions last.
    for (let i = 0; i < 3; i++) expect((await evaluate()).fired).toEqual([]);

    expect(await deliver()).toEqual({ delivered: 4, failed: 0 });
    expect(await deliver()).toEqual({ delivered: 0, failed: 0 });
    const low = sent("hot_wallet_low", "firing");
    expect(low).toHaveLength(1);
    expect(low[0]).toMatchObject({ severity: "warning", details: { balance_trx: 40, threshold_trx: 100 } });
    expect(low[0]?.text).toContain("40 TRX");
    expect(new Date(low[0]?.at as string).toISOString()).toBe(low[0]?.at);
    expect(sent("pool_low", "firing")).toHaveLength(1);
    for (const r of hook.requests) {
      const expected = "sha256=" + createHmac("sha256", SECRET).update(r.body).digest("hex");
      expect(r.headers["x-signature"]).toBe(expected);
      expect(r.headers["content-type"]).toBe("application/json");
    }
    expect(telegram.requests).toHaveLength(2);
    expect(telegramTexts().some((x) => x.startsWith("[WARNING] hot_wallet_low"))).toBe(true);
  });

  it("resolves each condition once when it clears", async () => {
    await t.devnetPost("/devnet/fund", { address: hot.address, trx: "500" });
    await refreshSnapshot();
    await fillAddressPool(t.ctx);
    expect((await evaluate()).resolved.sort()).toEqual(["hot_wallet_low", "pool_low"]);
    expect((await evaluate()).resolved).toEqual([]);
    expect(await firing()).toEqual([]);
    await deliver();
    expect(sent("hot_wallet_low", "resolved")).toHaveLength(1);
    expect(sent("pool_low", "resolved")).toHaveLength(1);
    expect(sent("pool_low", "resolved")[0]?.text).toMatch(/^Resolved: /);
    expect(telegramTexts().filter((x) => x.startsWith("[RESOLVED]"))).toHaveLength(2);
  });

  it("fires and resolves scanner lag", async () => {
    t.mine(8);
    expect((await evaluate()).fired).toEqual(["scanner_lag"]);
    expect((await evaluate()).fired).toEqual([]);
    await t.scanner.sync();
    expect((await evaluate()).resolved).toEqual(["scanner_lag"]);
    await deliver();
    const lag = sent("scanner_lag", "firing")[0];
    expect(lag?.severity).toBe("critical");
    expect(lag?.details.lag_blocks).toBeGreaterThanOrEqual(8);
    expect(sent("scanner_lag", "resolved")).toHaveLength(1);
  });

  it("fires when no node has answered for ALERT_NODE_DOWN_SECONDS, and resolves when one answers", async () => {
    await evaluate(); // a node answers now
    await node.stop();
    try {
      t.clock.advance(30_000);
      expect((await evaluate()).fired).toEqual([]);
      t.clock.advance(31_000);
      expect((await evaluate()).fired).toEqual(["node_down"]);
      t.clock.advance(60_000);
      expect((await evaluate()).fired).toEqual([]);
    } finally {
      await node.start();
    }
    expect((await evaluate()).resolved).toEqual(["node_down"]);
    await deliver();
    expect(sent("node_down", "firing")).toHaveLength(1);
    expect(sent("node_down", "resolved")).toHaveLength(1);
  });

  it("fires once per callback_failed order and per failed sweep", async () => {
    const order = await t.order("10");
    const at = t.clock.now().toISOString();
    for (const [type, payload] of [
      ["webhook_failed", { reason: "HTTP 500", attempt: 10 }],
      ["sweep_failed", { reason: "node unreachable", attempt: 8, step: "fund" }],
    ] as const) {
      await t.ctx.db.execute(
        sql`INSERT INTO order_events (id, order_id, event_type, payload, created_at)
            VALUES (${newId()}, ${order.id}, ${type}, ${JSON.stringify(payload)}::jsonb, ${at}::timestamptz)`,
      );
    }
    expect((await evaluate()).fired.sort()).toEqual(["callback_failed", "sweep_failed"]);
    expect((await evaluate()).fired).toEqual([]);
    await deliver();
    expect(sent("callback_failed", "firing")).toHaveLength(1);
    expect(sent("callback_failed", "firing")[0]?.details).toMatchObject({ order_id: order.id, attempt: 10 });
    expect(sent("sweep_failed", "firing")[0]).toMatchObject({
      severity: "critical",
      details: { step: "fund" },
    });
  });

  it("delivers after a receiver outage, and a worker that died mid-attempt loses nothing", async () => {
    hookUp = false;
    const before = hook.requests.length;
    t.mine(8);
    expect((await evaluate()).fired).toEqual(["scanner_lag"]);
    expect(await deliver()).toEqual({ delivered: 1, failed: 1 });
    const [failedRow] = await queryRows<{ attempts: number; last_error: string; status: string }>(
      t.ctx.db,
      sql`SELECT attempts, last_error, status FROM alert_deliveries WHERE channel = 'webhook' AND status = 'pending'`,
    );
    expect(failedRow).toMatchObject({ attempts: 1, status: "pending", last_error: "HTTP 503" });
    // The receiver is gone altogether for a while.
    await hook.close();
    t.clock.advance(alertRetryDelayMs(1));
    expect(await deliver()).toEqual({ delivered: 0, failed: 1 });
    hook = await startReceiver(() => ({ kind: "status", status: 200 }), { port: hookPort });
    hookUp = true;
    expect(await deliver()).toEqual({ delivered: 0, failed: 0 }); // not due yet
    t.clock.advance(alertRetryDelayMs(2));
    expect(await deliver()).toEqual({ delivered: 1, failed: 0 });
    expect(hook.requests.length).toBeGreaterThanOrEqual(1);
    expect(sent("scanner_lag", "firing")).toHaveLength(1);
    expect(before).toBeGreaterThan(0);

    // A claim whose worker died: the lease keeps it from others until it expires.
    await t.scanner.sync();
    expect((await evaluate()).resolved).toEqual(["scanner_lag"]);
    const lease = new Date(t.clock.now().getTime() + 60_000).toISOString();
    await t.ctx.db.execute(
      sql`UPDATE alert_deliveries SET locked_until = ${lease}::timestamptz WHERE status = 'pending'`,
    );
    expect(await deliver()).toEqual({ delivered: 0, failed: 0 });
    t.clock.advance(61_000);
    expect(await deliver()).toEqual({ delivered: 2, failed: 0 });
    expect(sent("scanner_lag", "resolved")).toHaveLength(1);
  });

  it("lists alerts in the admin API and as a metric, and never shows a secret", async () => {
    await t.devnetPost("/devnet/fund", { address: hot.address, trx: "1" });
    t.mine(8);
    expect((await evaluate()).fired).toEqual(["scanner_lag"]);
    const unauth = await app.inject({ method: "GET", url: "/api/v1/admin/alerts" });
    expect(unauth.statusCode).toBe(401);
    const reply = await app.inject({ method: "GET", url: "/api/v1/admin/alerts", headers: { cookie } });
    expect(reply.statusCode).toBe(200);
    const list = reply.json<{
      firing: { alert: string; state: string }[];
      recent: { alert: string; deliveries: unknown[] }[];
    }>();
    expect(list.firing.map((a) => a.alert)).toEqual(["scanner_lag"]);
    expect(list.recent.map((a) => a.alert)).toEqual(
      expect.arrayContaining(["hot_wallet_low", "pool_low", "node_down", "callback_failed", "sweep_failed"]),
    );
    expect(list.recent.find((a) => a.alert === "pool_low")?.deliveries).toHaveLength(4);

    await refreshSnapshot();
    const metrics = (await app.inject({ method: "GET", url: "/metrics" })).body;
    expect(metrics).toContain('stablegate_alerts_firing{alert="scanner_lag"} 1');
    expect(metrics).toContain('stablegate_alerts_firing{alert="pool_low"} 0');

    const everything = [
      reply.body,
      metrics,
      logs.join(""),
      ...hook.requests.map((r) => r.body.toString() + JSON.stringify(r.headers)),
      ...telegram.requests.map((r) => r.body.toString()),
      JSON.stringify(await queryRows(t.ctx.db, sql`SELECT * FROM alert_deliveries`)),
    ].join("\n");
    expect(everything).not.toContain(BOT_TOKEN);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain("whsec-chain-test");
    expect(logs.join("")).toContain("alert delivery failed");
  });

  it("carries the audit head in every channel's message, and sends the head itself once a UTC day", async () => {
    await appendAudit(t.ctx.db, { actor: { kind: "system", label: "alerts test" }, action: "test.row" });
    const head = await readAuditHead(t.ctx.db);
    if (!head) throw new Error("the audit log is empty");
    const reference = formatAuditHead(head);
    await deliver(); // what the tests before left in the outbox
    const hooked = hook.requests.length;
    const told = telegram.requests.length;

    expect(await publishAuditHead(t.ctx)).toBe(true);
    expect(await publishAuditHead(t.ctx)).toBe(false);
    expect(await deliver()).toEqual({ delivered: 2, failed: 0 });
    const daily = sent("audit_head", "firing");
    expect(daily).toHaveLength(1);
    expect(daily[0]).toMatchObject({
      severity: "info",
      audit_head: reference,
      details: { seq: head.seq, id: head.id, hash: head.hash, day: t.clock.now().toISOString().slice(0, 10) },
    });
    expect(daily[0]?.text).toContain(`stablegate verify-audit --expect-head ${reference}`);
    expect(telegramTexts().at(-1)).toContain(`audit head: ${reference}`);

    // The next day, once more, with the head as it is then.
    t.clock.advance(24 * 3600 * 1000);
    await appendAudit(t.ctx.db, { actor: { kind: "system", label: "alerts test" }, action: "test.row" });
    const next = formatAuditHead((await readAuditHead(t.ctx.db)) as NonNullable<typeof head>);
    expect(next).not.toBe(reference);
    expect(await publishAuditHead(t.ctx)).toBe(true);
    expect(await publishAuditHead(t.ctx)).toBe(false);
    await deliver();
    expect(sent("audit_head", "firing").map((b) => b.audit_head)).toEqual([reference, next]);

    // Every message of every channel, of every alert sent in this file, carried a head.
    const bodies = hookBodies();
    expect(bodies.length).toBeGreaterThan(hooked);
    for (const body of bodies) expect(body.audit_head, body.alert).toMatch(/^[0-9a-f-]{36}:[0-9a-f]{64}$/);
    expect(telegram.requests.length).toBeGreaterThan(told);
    for (const text of telegramTexts()) expect(text).toMatch(/\naudit head: [0-9a-f-]{36}:[0-9a-f]{64}\n/);
  });
});
