import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
let cookie: string;
beforeAll(async () => {
  t = await createTestApp();
  cookie = await adminCookie(t.app);
});
afterAll(async () => {
  await t.close();
});

const SECRET = "whsec-0123456789";

function create(payload: unknown) {
  return t.app.inject({
    method: "POST",
    url: "/api/v1/admin/merchants",
    headers: { cookie, "content-type": "application/json" },
    payload: JSON.stringify(payload),
  });
}

describe("POST /api/v1/admin/merchants", () => {
  it("answers 201 with the key, its prefix and the webhook secret, active, stamped by the clock", async () => {
    const reply = await create({ name: "Acme Coffee", webhook_secret: SECRET });
    expect(reply.statusCode).toBe(201);
    const body = reply.json();
    expect(Object.keys(body).sort()).toEqual(
      ["api_key", "api_key_prefix", "created_at", "id", "is_active", "name", "webhook_secret"].sort(),
    );
    expect(body).toMatchObject({
      name: "Acme Coffee",
      webhook_secret: SECRET,
      is_active: true,
      created_at: t.clock.now().toISOString(),
    });
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(body.api_key).toMatch(/^sg_test_[0-9A-Za-z]{43}$/);
    expect(body.api_key_prefix).toBe(body.api_key.slice(0, "sg_test_".length + 6));
  });

  it("gives every merchant a different key", async () => {
    const a = (await create({ name: "A", webhook_secret: SECRET })).json();
    const b = (await create({ name: "B", webhook_secret: SECRET })).json();
    expect(a.api_key).not.toBe(b.api_key);
  });

  it("accepts the deprecated webhookSecret alias, and snake_case wins when both are sent", async () => {
    const alias = await create({ name: "Alias", webhookSecret: "camel-secret-1" });
    expect(alias.statusCode).toBe(201);
    expect(alias.json().webhook_secret).toBe("camel-secret-1");
    const both = await create({
      name: "Both",
      webhook_secret: "snake-secret-1",
      webhookSecret: "camel-secret-2",
    });
    expect(both.statusCode).toBe(201);
    expect(both.json().webhook_secret).toBe("snake-secret-1");
  });

  it("accepts names of 1 and 255 characters and secrets of 8 and 255 characters", async () => {
    const cases: [string, string][] = [
      ["x", "s".repeat(8)],
      ["n".repeat(255), "s".repeat(255)],
      // 255 characters of 2 UTF-16 units each: lengths count characters, as PostgreSQL does.
      ["😀".repeat(255), "🔑".repeat(255)],
      ["Café Ünïcödé 東京 مرحبا", "pässwörd-密钥"],
    ];
    for (const [name, secret] of cases) {
      const reply = await create({ name, webhook_secret: secret });
      expect(reply.statusCode, `${name.length}/${secret.length}`).toBe(201);
      expect(reply.json().name).toBe(name);
      expect(reply.json().webhook_secret).toBe(secret);
    }
  });

  it.each([
    ["an empty name", { name: "", webhook_secret: SECRET }, "body.name"],
    ["a name of 256 characters", { name: "n".repeat(256), webhook_secret: SECRET }, "body.name"],
    ["a name of 256 emoji", { name: "😀".repeat(256), webhook_secret: SECRET }, "body.name"],
    ["a blank name", { name: "   ", webhook_secret: SECRET }, "body.name"],
    ["a name with a NUL", { name: "bad\u0000name", webhook_secret: SECRET }, "body.name"],
    ["a name with a newline", { name: "two\nlines", webhook_secret: SECRET }, "body.name"],
    ["a missing name", { webhook_secret: SECRET }, "body.name"],
    ["a numeric name", { name: 42, webhook_secret: SECRET }, "body.name"],
    ["a null name", { name: null, webhook_secret: SECRET }, "body.name"],
    ["an array name", { name: ["a"], webhook_secret: SECRET }, "body.name"],
    ["an object name", { name: { first: "a" }, webhook_secret: SECRET }, "body.name"],
    ["a secret of 7 characters", { name: "Shop", webhook_secret: "s".repeat(7) }, "body.webhook_secret"],
    ["a secret of 256 characters", { name: "Shop", webhook_secret: "s".repeat(256) }, "body.webhook_secret"],
    [
      "a camelCase secret of 7 characters",
      { name: "Shop", webhookSecret: "s".repeat(7) },
      "body.webhookSecret",
    ],
    ["a missing secret", { name: "Shop" }, "body.webhook_secret"],
    ["a numeric secret", { name: "Shop", webhook_secret: 12345678 }, "body.webhook_secret"],
    ["a boolean secret", { name: "Shop", webhook_secret: true }, "body.webhook_secret"],
    ["a null secret", { name: "Shop", webhook_secret: null }, "body.webhook_secret"],
    ["a secret with a NUL", { name: "Shop", webhook_secret: "abc\u0000defgh" }, "body.webhook_secret"],
    ["an empty object", {}, "body.name"],
  ])("answers 400 INVALID_BODY naming the field for %s", async (_label, payload, field) => {
    const reply = await create(payload);
    expect(reply.statusCode).toBe(400);
    const body = reply.json();
    expect(Object.keys(body).sort()).toEqual(["code", "error"]);
    expect(body.code).toBe("INVALID_BODY");
    expect(body.error.startsWith(`${field}:`), body.error).toBe(true);
  });

  it.each([
    ["an array", [{ name: "Shop", webhook_secret: SECRET }]],
    ["null", null],
    ["a number", 7],
    ["a string", "Shop"],
  ])("answers 400 INVALID_BODY for a JSON %s body", async (_label, payload) => {
    const reply = await create(payload);
    expect(reply.statusCode).toBe(400);
    expect(reply.json().code).toBe("INVALID_BODY");
  });

  it("ignores unknown keys instead of storing or echoing them", async () => {
    const reply = await create({
      name: "Extra",
      webhook_secret: SECRET,
      is_active: false,
      api_key: "sg_test_x",
    });
    expect(reply.statusCode).toBe(201);
    expect(reply.json().is_active).toBe(true);
    expect(reply.json().api_key).not.toBe("sg_test_x");
  });

  it("creates nothing when validation fails", async () => {
    const before = (
      await t.app.inject({ method: "GET", url: "/api/v1/admin/merchants", headers: { cookie } })
    ).json().data.length;
    await create({ name: "", webhook_secret: SECRET });
    await create({ name: "Shop", webhook_secret: "short" });
    const after = (
      await t.app.inject({ method: "GET", url: "/api/v1/admin/merchants", headers: { cookie } })
    ).json().data.length;
    expect(after).toBe(before);
  });
});

describe("mainnet keys", () => {
  let main: TestApp;
  beforeAll(async () => {
    main = await createTestApp({ env: { TRON_NETWORK: "mainnet" } });
  });
  afterAll(async () => {
    await main.close();
  });

  it("issues sg_live_ keys on mainnet", async () => {
    const mainCookie = await adminCookie(main.app);
    const reply = await main.app.inject({
      method: "POST",
      url: "/api/v1/admin/merchants",
      headers: { cookie: mainCookie },
      payload: { name: "Live Shop", webhook_secret: SECRET },
    });
    expect(reply.statusCode).toBe(201);
    expect(reply.json().api_key).toMatch(/^sg_live_[0-9A-Za-z]{43}$/);
    expect(reply.json().api_key_prefix).toMatch(/^sg_live_[0-9A-Za-z]{6}$/);
  });
});
