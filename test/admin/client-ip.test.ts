/**
 * The client address behind a proxy, and what the login limiter keys on (DESIGN.md 12):
 * - TRUST_PROXY is a hop count or a list of proxy addresses/CIDRs; with nginx's
 *   `$proxy_add_x_forwarded_for` the leftmost X-Forwarded-For entry is the client's own claim, so a
 *   guessing run that writes a new one per attempt is still one client, limited and audited as such;
 *   `true` (which trusts that claim) is refused in production.
 * - the built-in owner is limited per account as well as per IP;
 * - argon2 runs only for an attempt the limiter admitted.
 * The real app (inject sets the socket's address), a fresh database, the real argon2.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hash } from "@node-rs/argon2";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { operators } from "../../src/db/schema.js";
import { queryRows } from "../../src/db/query-rows.js";
import { mnemonicToAccountXpub } from "@stablegate/tron/hd";
import { LOGIN_ACCOUNT_MAX_FAILURES } from "../../src/admin/login-limit.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_ADMIN_PASSWORD, TEST_MNEMONIC, testConfig } from "../helpers/config.js";
import { createOperatorViaApi, OPERATOR_PASSWORD } from "../helpers/operators.js";

const NGINX = "127.0.0.1";

function productionEnv(trustProxy: string): Record<string, string> {
  return {
    NODE_ENV: "production",
    DATA_DIR: mkdtempSync(join(tmpdir(), "sg-trust-proxy-")),
    TRON_NETWORK: "mainnet",
    ADMIN_PASSWORD: "a long operator password",
    SESSION_SECRET: "0123456789abcdef0123456789abcdef",
    API_KEY_PEPPER: "fedcba9876543210fedcba9876543210",
    WALLET_XPUB: mnemonicToAccountXpub(TEST_MNEMONIC),
    TRUST_PROXY: trustProxy,
  };
}

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`TRUST_PROXY=${env.TRUST_PROXY} was accepted`);
}

describe("TRUST_PROXY", () => {
  it("takes a hop count or proxy addresses/CIDRs; true only outside production", () => {
    expect(testConfig({ TRUST_PROXY: "1" }).trustProxy).toBe(1);
    expect(testConfig({ TRUST_PROXY: "2" }).trustProxy).toBe(2);
    expect(testConfig({ TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(testConfig({}).trustProxy).toBe(false);
    expect(testConfig({ TRUST_PROXY: "10.0.0.5, 172.16.0.0/12,fd00::/8,loopback" }).trustProxy).toEqual([
      "10.0.0.5",
      "172.16.0.0/12",
      "fd00::/8",
      "loopback",
    ]);
    expect(testConfig({ TRUST_PROXY: "true" }).trustProxy).toBe(true);
    expect(loadConfig(productionEnv("1")).trustProxy).toBe(1);
    expect(loadConfig(productionEnv("10.0.0.0/8")).trustProxy).toEqual(["10.0.0.0/8"]);

    const refused = configError(productionEnv("true"));
    expect(refused.message).toContain("TRUST_PROXY");
    expect(refused.message).toMatch(/true is refused in production.*leftmost X-Forwarded-For/);
    for (const bad of ["10.0.0.0/33", "proxy.example.com", "10.0.0.1/8/2", "17", "::1/129"]) {
      expect(configError(productionEnv(bad)).message, bad).toContain("TRUST_PROXY");
    }
  });
});

describe("behind nginx's $proxy_add_x_forwarded_for", () => {
  for (const [name, trustProxy] of [
    ["a hop count", "1"],
    ["the proxy's address", `${NGINX}/32`],
  ] as const) {
    describe(`with TRUST_PROXY=${trustProxy} (${name})`, () => {
      let t: TestApp;
      beforeAll(async () => {
        t = await createTestApp({ env: { TRUST_PROXY: trustProxy } });
      });
      afterAll(() => t.close());

      it("limits and audits the address nginx saw, whatever the client claims leftmost", async () => {
        const real = "203.0.113.7";
        const statuses: number[] = [];
        for (let i = 0; i < 7; i++) {
          const reply = await t.app.inject({
            method: "POST",
            url: "/api/v1/admin/auth/login",
            payload: { password: `wrong guess ${i}` },
            remoteAddress: NGINX,
            // The client sent "X-Forwarded-For: 198.18.0.i"; nginx appended the address it saw.
            headers: { "x-forwarded-for": `198.18.0.${i + 1}, ${real}` },
          });
          statuses.push(reply.statusCode);
        }
        expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
        const rows = await queryRows<{ ip: string }>(
          t.ctx.db,
          sql`SELECT DISTINCT ip FROM audit_log WHERE action LIKE 'auth.login%'`,
        );
        expect(rows.map((r) => r.ip)).toEqual([real]);
      });

      it("takes a client that reaches the api directly by its socket address", async () => {
        const reply = await t.app.inject({
          method: "POST",
          url: "/api/v1/admin/auth/login",
          payload: { password: "wrong direct" },
          remoteAddress: "192.0.2.44",
          headers: { "x-forwarded-for": "198.18.9.9" },
        });
        expect(reply.statusCode).toBe(401);
        const [row] = await queryRows<{ ip: string }>(
          t.ctx.db,
          sql`SELECT ip FROM audit_log WHERE action = 'auth.login_failed' ORDER BY seq DESC LIMIT 1`,
        );
        // A hop count trusts whatever stands in front (run it only where the proxy alone reaches
        // the api); an address list trusts the proxy alone.
        expect(row?.ip).toBe(trustProxy === "1" ? "198.18.9.9" : "192.0.2.44");
      });
    });
  }
});

describe("the login limiter", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("limits the built-in owner per account: failures spread over many addresses lock it", async () => {
    for (let i = 0; i < LOGIN_ACCOUNT_MAX_FAILURES; i++) {
      const reply = await t.app.inject({
        method: "POST",
        url: "/api/v1/admin/auth/login",
        payload: { password: `guess number ${i}` },
        remoteAddress: `198.18.1.${i + 1}`,
      });
      expect(reply.statusCode).toBe(401);
    }
    const refused = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/auth/login",
      payload: { password: TEST_ADMIN_PASSWORD },
      remoteAddress: "198.18.2.1",
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: expect.any(String), code: "RATE_LIMITED" });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    // Named operators sign in meanwhile (the owner creates them before the run, as here).
    t.clock.advanceSeconds(15 * 60 + 1);
    expect(
      (
        await t.app.inject({
          method: "POST",
          url: "/api/v1/admin/auth/login",
          payload: { password: TEST_ADMIN_PASSWORD },
          remoteAddress: "198.18.2.2",
        })
      ).statusCode,
    ).toBe(200);
  });

  it("checks no password for an attempt it refuses: argon2 runs only after admission", async () => {
    const owner = await adminCookie(t.app);
    const slow = await createOperatorViaApi(t.app, owner, { email: "slow@example.com", role: "viewer" });
    await createOperatorViaApi(t.app, owner, { email: "fast@example.com", role: "viewer" });
    // A hash that takes long to verify, so a verification cannot hide in the request's other work.
    const slowHash = await hash(OPERATOR_PASSWORD, {
      algorithm: 2,
      memoryCost: 19_456,
      timeCost: 200,
      parallelism: 1,
    });
    await t.ctx.db.update(operators).set({ passwordHash: slowHash }).where(eq(operators.id, slow.id));
    const ip = "198.18.3.1";
    const attempt = async (email: string, password: string) => {
      const started = performance.now();
      const reply = await t.app.inject({
        method: "POST",
        url: "/api/v1/admin/auth/login",
        payload: { email, password },
        remoteAddress: ip,
      });
      return { status: reply.statusCode, ms: performance.now() - started };
    };
    for (let i = 0; i < 4; i++) expect((await attempt("fast@example.com", "wrong")).status).toBe(401);
    const admitted = await attempt("slow@example.com", "wrong");
    expect(admitted.status).toBe(401);
    expect(admitted.ms).toBeGreaterThan(300); // the hash did cost what the check below relies on
    const refusedWrong = await attempt("slow@example.com", "wrong again");
    const refusedRight = await attempt("slow@example.com", OPERATOR_PASSWORD);
    expect([refusedWrong.status, refusedRight.status]).toEqual([429, 429]);
    expect(refusedWrong.ms).toBeLessThan(admitted.ms / 3);
    expect(refusedRight.ms).toBeLessThan(admitted.ms / 3);
  }, 120_000);
});
