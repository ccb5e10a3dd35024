/**
 * A passkey assertion moves its own credential's signature counter and nothing else (regression: the
 * compare-and-set's OR was not parenthesised inside and(), so an assertion matched every passkey with
 * a lower counter, of every operator, and was refused for updating more than one row).
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operatorPasskeys } from "../../src/db/schema.js";
import { adminCookie, createMerchantViaApi } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { createOperatorViaApi, OPERATOR_PASSWORD, operatorCookie } from "../helpers/operators.js";
import { registerSoftwarePasskey, stepUpPasskey } from "../helpers/software-passkey.js";

let t: TestApp;
afterAll(() => t.close());
beforeAll(async () => {
  t = await createTestApp();
});

describe("passkey signature counters", () => {
  it("a step-up with one operator's passkey leaves another operator's passkey alone", async () => {
    const owner = await adminCookie(t.app);
    await createOperatorViaApi(t.app, owner, { email: "other@example.com", role: "admin" });
    const other = await operatorCookie(t.app, "other@example.com");
    const origin = t.ctx.config.publicBaseUrl;
    const ownerKey = await registerSoftwarePasskey(t.app, owner, origin, {
      currentPassword: TEST_ADMIN_PASSWORD,
    });
    const otherKey = await registerSoftwarePasskey(t.app, other, origin, {
      currentPassword: OPERATOR_PASSWORD,
    });
    const merchant = await createMerchantViaApi(t.app, owner);

    const rotated = await t.app.inject({
      method: "POST",
      url: `/api/v1/admin/merchants/${merchant.id}/rotate-api-key`,
      headers: { cookie: owner },
      payload: { passkey: await stepUpPasskey(t.app, owner, ownerKey) },
    });
    expect(rotated.statusCode, rotated.body).toBe(200);

    const rowOf = async (credentialId: string) =>
      (
        await t.ctx.db.select().from(operatorPasskeys).where(eq(operatorPasskeys.credentialId, credentialId))
      )[0];
    expect(await rowOf(ownerKey.id)).toMatchObject({ counter: 1 });
    expect((await rowOf(ownerKey.id))?.lastUsedAt).not.toBeNull();
    expect(await rowOf(otherKey.id)).toMatchObject({ counter: 0, lastUsedAt: null });

    // and the other operator's passkey still works for its own step-up
    const again = await t.app.inject({
      method: "POST",
      url: `/api/v1/admin/merchants/${merchant.id}/rotate-api-key`,
      headers: { cookie: other },
      payload: { passkey: await stepUpPasskey(t.app, other, otherKey) },
    });
    expect(again.statusCode, again.body).toBe(200);
    expect(await rowOf(otherKey.id)).toMatchObject({ counter: 1 });
    expect(await rowOf(ownerKey.id)).toMatchObject({ counter: 1 });
  });
});
