/**
 * Secrets that travel in a URL path never reach the logs (src/logger.ts, SECRET_PATH_PATTERNS): a
 * refund's whole claim flow (page, claim API read, a refused and an accepted address, approval,
 * the payout sent on the devnet, the finished view, a mistyped path) with the real pino logger at
 * trace level, every line searched for the token. And every registered route whose path holds a
 * secret-like parameter is covered by the pattern list, so a new one cannot be forgotten.
 */
import { sql } from "drizzle-orm";
import { TronWeb } from "tronweb";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { buildApp } from "../../src/http/app.js";
import { createLogger, redactSecretPaths } from "../../src/logger.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import { runDuePayouts } from "../../src/payouts/send-payouts.js";
import { adminCookie } from "../helpers/admin.js";
import { enrolTotp, totpAt } from "../helpers/operators.js";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";

let t: ChainTest;
let app: FastifyInstance;
const logs: string[] = [];

beforeAll(async () => {
  const hot = await TronWeb.createAccount();
  t = await startChainTest({
    env: { HOT_WALLET_PRIVATE_KEY: hot.privateKey, SWEEP_ENABLED: "false" },
    log: createLogger({ level: "trace", destination: { write: (line: string) => void logs.push(line) } }),
  });
  await t.devnetPost("/devnet/fund", {
    address: hot.address.base58,
    trx: "1000",
    usdt: "100",
    solidify: true,
  });
  await t.scanner.sync();
  app = await buildApp(t.ctx);
  await app.ready();
}, 120_000);
afterAll(async () => {
  await app?.close();
  await t?.close();
});

describe("a refund's claim token", () => {
  it("appears in no log line of a whole claim flow at trace level", async () => {
    const { apiKey } = await createMerchant(t.ctx, { name: "Log Shop", webhookSecret: "whsec-log-shop" });
    const merchant = (method: "GET" | "POST", url: string, payload?: Record<string, unknown>) =>
      app.inject({ method, url, headers: { "x-api-key": apiKey }, ...(payload ? { payload } : {}) });
    const created = await merchant("POST", "/api/v1/payments", {
      external_id: "log-order",
      amount: "10",
      currency: "USDT",
      callback_url: "https://shop.example.com/cb",
    });
    expect(created.statusCode, created.body).toBe(201);
    const order = created.json<{ id: string; address: string }>();
    await t.pay(order.address, 10_000_000n);
    t.mine(1);
    await t.finalize();

    const refund = await merchant("POST", `/api/v1/payments/${order.id}/refunds`, { amount: "4" });
    expect(refund.statusCode, refund.body).toBe(201);
    const { id: refundId, claim_url: claimUrl } = refund.json<{ id: string; claim_url: string }>();
    const token = claimUrl.split("/refund/")[1] as string;
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const from = logs.length;

    const page = await app.inject({ method: "GET", url: `/refund/${token}` });
    expect([200, 503]).toContain(page.statusCode); // 503 only before the web build
    const claimApi = `/api/v1/refund-claims/${token}`;
    expect((await app.inject({ method: "GET", url: claimApi })).statusCode).toBe(200);
    const refused = await app.inject({
      method: "POST",
      url: claimApi,
      payload: { address: "not-an-address" },
    });
    expect(refused.statusCode).toBeGreaterThanOrEqual(400);
    expect((await app.inject({ method: "GET", url: `${claimApi}/extra?x=1` })).statusCode).toBe(404);
    const payer = (await TronWeb.createAccount()).address.base58;
    const claimed = await app.inject({ method: "POST", url: claimApi, payload: { address: payer } });
    expect(claimed.statusCode, claimed.body).toBe(200);

    const cookie = await adminCookie(app);
    const { secret } = await enrolTotp(app, cookie, () => t.clock.now());
    t.clock.advance(30_000);
    const approved = await app.inject({
      method: "POST",
      url: `/api/v1/admin/payouts/${refundId}/approve`,
      headers: { cookie },
      payload: { totp_code: totpAt(secret, t.clock.now()) },
    });
    expect(approved.statusCode, approved.body).toBe(200);
    let status = "";
    for (let round = 0; round < 12 && status !== "completed"; round++) {
      await runDuePayouts(t.ctx);
      t.devnet.mine(SOLIDIFY_AFTER + 1);
      t.clock.advance(60_000);
      status = (await app.inject({ method: "GET", url: claimApi })).json<{ status: string }>().status;
    }
    expect(status).toBe("completed");

    const flow = logs.slice(from).join("");
    // The request lines were written (so the search below can fail), with the secret cut out.
    expect(flow).toContain('"url":"/api/v1/refund-claims/[redacted]"');
    expect(flow).toContain('"url":"/refund/[redacted]"');
    expect(flow).toContain('"url":"/api/v1/refund-claims/[redacted]/extra?x=1"');
    expect(logs.join("")).not.toContain(token);
    // Setting the destination is on the audit record (who: the payer, from where), token-free.
    const audit = await queryRows<{ action: string; target_id: string; ip: string | null; whole: string }>(
      t.ctx.db,
      sql`SELECT action, target_id, ip, row_to_json(a)::text AS whole FROM audit_log a ORDER BY seq`,
    );
    expect(audit.filter((row) => row.action === "refund.claim")).toEqual([
      expect.objectContaining({ target_id: refundId, ip: "127.0.0.1" }),
    ]);
    expect(audit.find((row) => row.action === "refund.claim")?.whole).toContain(payer);
    expect(audit.map((row) => row.whole).join("\n")).not.toContain(token);
  }, 180_000);

  it("is cut out of error messages and stacks and of message texts as well", async () => {
    const token = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-token";
    const from = logs.length;
    t.ctx.log.error({ err: new Error(`failed at /refund/${token}`) }, "request failed");
    t.ctx.log.warn(`Reply was already sent for "/api/v1/refund-claims/${token}" (GET)`);
    const lines = logs.slice(from).join("");
    expect(lines).toContain("/refund/[redacted]");
    expect(lines).toContain("/api/v1/refund-claims/[redacted]");
    expect(lines).not.toContain(token);
  });
});

describe("the secret path patterns", () => {
  it("cover every registered route with a secret-like path parameter", () => {
    const secretParam = /:(token|secret|key|code|[a-z_]*_token)\b/;
    const routes = (app as unknown as { registeredRoutes: { method: string; url: string }[] })
      .registeredRoutes;
    const withSecrets = routes.filter((route) => secretParam.test(route.url));
    expect(withSecrets.map((r) => r.url)).toEqual(
      expect.arrayContaining(["/refund/:token", "/api/v1/refund-claims/:token"]),
    );
    const sample = "S3cr3t-Sample-Value_0123456789abcdefghij";
    const leaking = withSecrets
      .map((route) => route.url.replace(/:[A-Za-z_]+/g, sample))
      .filter((url) => redactSecretPaths(url).includes(sample));
    expect(leaking).toEqual([]);
  });

  it("leave every other path alone", () => {
    for (const url of [
      "/api/v1/payments/0193a/refunds",
      "/checkout/0193a",
      "/api/v1/admin/payouts/0193a/approve",
    ])
      expect(redactSecretPaths(url)).toBe(url);
  });
});
