/**
 * Secrets never rest where they should not: the database holds no raw API key, reads never return
 * webhook_secret, and a whole logged session contains no password, key, secret or session token.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../src/merchants/api-keys.js";
import { createLogger } from "../../src/logger.js";
import { merchants } from "../../src/db/schema.js";
import { adminCookie, createMerchantViaApi, uniqueIp } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";

const lines: string[] = [];
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    log: createLogger({ level: "trace", destination: { write: (line: string) => void lines.push(line) } }),
  });
});
afterAll(async () => {
  await t.close();
});

async function allRowsAsText(): Promise<string[]> {
  return t.ctx.database.session(async (session) => {
    const { rows: tables } = await session.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    const texts: string[] = [];
    for (const { table_name } of tables) {
      const { rows } = await session.query<{ row: string }>(
        `SELECT row_to_json(t)::text AS row FROM "${table_name}" t`,
      );
      texts.push(...rows.map((r) => r.row));
    }
    return texts;
  });
}

describe("API keys at rest", () => {
  it("stores only the HMAC of the key: no column of any table holds the key or its secret part", async () => {
    const cookie = await adminCookie(t.app);
    const created = await createMerchantViaApi(t.app, cookie, {
      name: "Rest",
      webhook_secret: "whsec-rest-123",
    });
    const rotated = (
      await t.app.inject({
        method: "POST",
        url: `/api/v1/admin/merchants/${created.id}/rotate-api-key`,
        headers: { cookie },
      })
    ).json();

    const rows = await t.ctx.db.select().from(merchants);
    const row = rows.find((r) => r.id === created.id);
    expect(row?.apiKeyHash).toBe(hashApiKey(t.ctx.config.apiKeyPepper, rotated.api_key));
    expect(row?.apiKeyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.apiKeyPrefix).toBe(rotated.api_key_prefix);

    const everything = (await allRowsAsText()).join("\n");
    expect(everything).toContain(created.id);
    for (const key of [created.api_key, rotated.api_key]) {
      expect(everything).not.toContain(key);
      expect(everything).not.toContain(key.slice("sg_test_".length));
      // Not even a 20-character run of the secret part.
      expect(everything).not.toContain(key.slice(14, 34));
    }
  });
});

describe("webhook_secret on reads", () => {
  it("is returned by create only: never by list, detail, update, rotate or /merchant/me", async () => {
    const cookie = await adminCookie(t.app);
    const secret = "whsec-never-read-back";
    const created = await createMerchantViaApi(t.app, cookie, { name: "Reads", webhook_secret: secret });
    expect(created.webhook_secret).toBe(secret);
    const newSecret = "whsec-updated-never-read";
    const replies = [
      await t.app.inject({ method: "GET", url: "/api/v1/admin/merchants", headers: { cookie } }),
      await t.app.inject({
        method: "GET",
        url: `/api/v1/admin/merchants/${created.id}`,
        headers: { cookie },
      }),
      await t.app.inject({
        method: "PUT",
        url: `/api/v1/admin/merchants/${created.id}`,
        headers: { cookie },
        payload: { webhook_secret: newSecret },
      }),
      await t.app.inject({
        method: "GET",
        url: `/api/v1/admin/merchants/${created.id}`,
        headers: { cookie },
      }),
      await t.app.inject({
        method: "POST",
        url: `/api/v1/admin/merchants/${created.id}/rotate-api-key`,
        headers: { cookie },
      }),
      await t.app.inject({
        method: "GET",
        url: "/api/v1/merchant/me",
        headers: { "x-api-key": created.api_key },
      }),
    ];
    for (const reply of replies) {
      expect(reply.statusCode, reply.body).toBeLessThan(500);
      expect(reply.body).not.toContain(secret);
      expect(reply.body).not.toContain(newSecret);
      expect(reply.body).not.toContain("webhook_secret");
      expect(reply.body).not.toContain("webhookSecret");
    }
  });
});

describe("logs of a whole admin and merchant session", () => {
  it("contain no password, API key, webhook secret or session token", async () => {
    lines.length = 0;
    const wrongGuess = "wrong-guess-Zq8";
    const failedIp = uniqueIp();
    await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/auth/login",
      payload: { password: wrongGuess },
      remoteAddress: failedIp,
    });
    const login = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/auth/login",
      payload: { password: TEST_ADMIN_PASSWORD },
      remoteAddress: uniqueIp(),
    });
    const cookie = String(login.headers["set-cookie"]).split(";")[0] as string;
    const token = cookie.slice("admin_token=".length);
    const merchant = await createMerchantViaApi(t.app, cookie, {
      name: "Logged Shop",
      webhook_secret: "whsec-logged-original",
    });
    await t.app.inject({
      method: "GET",
      url: "/api/v1/merchant/me",
      headers: { "x-api-key": merchant.api_key },
    });
    const rotated = (
      await t.app.inject({
        method: "POST",
        url: `/api/v1/admin/merchants/${merchant.id}/rotate-api-key`,
        headers: { cookie },
      })
    ).json();
    await t.app.inject({
      method: "GET",
      url: "/api/v1/merchant/me",
      headers: { "x-api-key": merchant.api_key },
    });
    await t.app.inject({
      method: "GET",
      url: "/api/v1/merchant/me",
      headers: { "x-api-key": rotated.api_key },
    });
    await t.app.inject({
      method: "PUT",
      url: `/api/v1/admin/merchants/${merchant.id}`,
      headers: { cookie },
      payload: { webhook_secret: "whsec-logged-updated" },
    });
    await t.app.inject({
      method: "PUT",
      url: `/api/v1/admin/merchants/${merchant.id}`,
      headers: { cookie },
      payload: { webhookSecret: "whsec-logged-camel" },
    });
    await t.app.inject({ method: "GET", url: `/api/v1/admin/merchants/${merchant.id}`, headers: { cookie } });
    await t.app.inject({ method: "POST", url: "/api/v1/admin/auth/logout", headers: { cookie } });
    for (let i = 0; i < 6; i++) {
      await t.app.inject({
        method: "POST",
        url: "/api/v1/admin/auth/login",
        payload: { password: `${wrongGuess}-${i}` },
        remoteAddress: failedIp,
      });
    }

    const log = lines.join("");
    // The capture works: the session's fixed phrases and ids are there.
    expect(log).toContain("merchant created");
    expect(log).toContain("merchant api key rotated");
    expect(log).toContain("admin login failed");
    expect(log).toContain("admin login rate limited");
    expect(log).toContain(merchant.id);
    expect(log).toContain(rotated.api_key_prefix);
    expect(log).toContain("/api/v1/merchant/me");

    const secrets = [
      TEST_ADMIN_PASSWORD,
      wrongGuess,
      merchant.api_key,
      merchant.api_key.slice(14),
      rotated.api_key,
      rotated.api_key.slice(14),
      "whsec-logged-original",
      "whsec-logged-updated",
      "whsec-logged-camel",
      token,
      token.split(".")[2] as string,
      t.ctx.config.sessionSecret,
      t.ctx.config.apiKeyPepper,
    ];
    for (const secret of secrets) expect(log, secret.slice(0, 12)).not.toContain(secret);
  });
});
