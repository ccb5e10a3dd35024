import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { merchants } from "../../src/db/schema.js";
import { adminCookie, createMerchantViaApi, type CreatedMerchantReply } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
let cookie: string;
let merchant: CreatedMerchantReply;
beforeAll(async () => {
  t = await createTestApp();
  cookie = await adminCookie(t.app);
  merchant = await createMerchantViaApi(t.app, cookie, { name: "Before", webhook_secret: "original-secret" });
});
afterAll(async () => {
  await t.close();
});

function update(payload: unknown, id = merchant.id) {
  return t.app.inject({
    method: "PUT",
    url: `/api/v1/admin/merchants/${id}`,
    headers: { cookie, "content-type": "application/json" },
    payload: JSON.stringify(payload),
  });
}

async function stored() {
  const [row] = await t.ctx.db.select().from(merchants).where(eq(merchants.id, merchant.id));
  if (!row) throw new Error("merchant vanished");
  return row;
}

describe("PUT /api/v1/admin/merchants/:id", () => {
  it("changes the name and answers the merchant summary without the webhook secret", async () => {
    const reply = await update({ name: "After" });
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toEqual({
      id: merchant.id,
      name: "After",
      api_key_prefix: merchant.api_key_prefix,
      is_active: true,
      created_at: merchant.created_at,
    });
    expect((await stored()).name).toBe("After");
  });

  it("suspends and reactivates with is_active", async () => {
    expect((await update({ is_active: false })).json().is_active).toBe(false);
    expect((await stored()).isActive).toBe(false);
    expect((await update({ is_active: true })).json().is_active).toBe(true);
    expect((await stored()).isActive).toBe(true);
  });

  it("replaces the webhook secret without echoing it", async () => {
    const reply = await update({ webhook_secret: "rotated-secret-2" });
    expect(reply.statusCode).toBe(200);
    expect(reply.body).not.toContain("rotated-secret-2");
    expect(reply.json()).not.toHaveProperty("webhook_secret");
    expect((await stored()).webhookSecret).toBe("rotated-secret-2");
  });

  it("changes several fields at once", async () => {
    const reply = await update({ name: "Multi", is_active: false, webhook_secret: "multi-secret-3" });
    expect(reply.json()).toMatchObject({ name: "Multi", is_active: false });
    const row = await stored();
    expect([row.name, row.isActive, row.webhookSecret]).toEqual(["Multi", false, "multi-secret-3"]);
    await update({ is_active: true });
  });

  it("accepts the camelCase aliases isActive and webhookSecret", async () => {
    expect((await update({ isActive: false })).json().is_active).toBe(false);
    expect((await update({ webhookSecret: "camel-secret-4" })).statusCode).toBe(200);
    const row = await stored();
    expect(row.isActive).toBe(false);
    expect(row.webhookSecret).toBe("camel-secret-4");
    await update({ is_active: true });
  });

  it("lets snake_case win when both forms are sent", async () => {
    const reply = await update({
      is_active: true,
      isActive: false,
      webhook_secret: "snake-secret-5",
      webhookSecret: "camel-secret-5",
    });
    expect(reply.json().is_active).toBe(true);
    const row = await stored();
    expect(row.isActive).toBe(true);
    expect(row.webhookSecret).toBe("snake-secret-5");
  });

  it("accepts names of 1 and 255 characters and secrets of 8 and 255 characters", async () => {
    for (const payload of [
      { name: "x" },
      { name: "n".repeat(255) },
      { webhook_secret: "s".repeat(8) },
      { webhook_secret: "s".repeat(255) },
    ]) {
      expect((await update(payload)).statusCode, JSON.stringify(payload).slice(0, 40)).toBe(200);
    }
    expect((await stored()).webhookSecret).toBe("s".repeat(255));
  });

  it.each([
    ["an empty name", { name: "" }, "body.name"],
    ["a name of 256 characters", { name: "n".repeat(256) }, "body.name"],
    ["a numeric name", { name: 5 }, "body.name"],
    ["a null name", { name: null }, "body.name"],
    ["an array name", { name: ["x"] }, "body.name"],
    ["a string is_active", { is_active: "false" }, "body.is_active"],
    ["a numeric is_active", { is_active: 0 }, "body.is_active"],
    ["a null is_active", { is_active: null }, "body.is_active"],
    ["a string isActive", { isActive: "true" }, "body.isActive"],
    ["a secret of 7 characters", { webhook_secret: "s".repeat(7) }, "body.webhook_secret"],
    ["a secret of 256 characters", { webhook_secret: "s".repeat(256) }, "body.webhook_secret"],
    ["a camelCase secret of 7 characters", { webhookSecret: "s".repeat(7) }, "body.webhookSecret"],
    ["a numeric secret", { webhook_secret: 123456789 }, "body.webhook_secret"],
    ["an array secret", { webhook_secret: ["abcdefgh"] }, "body.webhook_secret"],
  ])("answers 400 INVALID_BODY naming the field for %s and changes nothing", async (_l, payload, field) => {
    const before = await stored();
    const reply = await update(payload);
    expect(reply.statusCode).toBe(400);
    expect(reply.json().code).toBe("INVALID_BODY");
    expect(reply.json().error.startsWith(`${field}:`), reply.json().error).toBe(true);
    expect(await stored()).toEqual(before);
  });

  it.each([
    ["an empty object", {}],
    ["only unknown keys", { colour: "blue", api_key: "sg_test_x" }],
    ["JSON null", null],
  ])("answers 400 EMPTY_UPDATE for %s", async (_label, payload) => {
    const reply = await update(payload);
    expect(reply.statusCode).toBe(400);
    expect(reply.json()).toEqual({ error: expect.any(String), code: "EMPTY_UPDATE" });
  });

  it("answers 400 EMPTY_UPDATE for a PUT without a body", async () => {
    const reply = await t.app.inject({
      method: "PUT",
      url: `/api/v1/admin/merchants/${merchant.id}`,
      headers: { cookie },
    });
    expect(reply.statusCode).toBe(400);
    expect(reply.json().code).toBe("EMPTY_UPDATE");
  });

  it("answers 400 INVALID_BODY for an array or number body", async () => {
    for (const payload of [[{ name: "x" }], 3, "name"]) {
      const reply = await update(payload);
      expect(reply.statusCode).toBe(400);
      expect(reply.json().code).toBe("INVALID_BODY");
    }
  });

  it.each([
    ["an unknown id", "3f1d2c4b-0000-4000-8000-000000000000"],
    ["a malformed id", "not-a-uuid"],
    ["an id with SQL in it", "1' OR '1'='1"],
  ])("answers 404 NOT_FOUND for %s", async (_label, id) => {
    const reply = await update({ name: "Ghost" }, encodeURIComponent(id));
    expect(reply.statusCode).toBe(404);
    expect(reply.json()).toEqual({ error: "merchant not found", code: "NOT_FOUND" });
  });

  it("checks the body before existence: an empty update of an unknown merchant is EMPTY_UPDATE", async () => {
    const reply = await update({}, "3f1d2c4b-0000-4000-8000-000000000000");
    expect(reply.json().code).toBe("EMPTY_UPDATE");
  });
});
