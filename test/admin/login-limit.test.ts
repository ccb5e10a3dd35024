import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loginAttempts } from "../../src/db/schema.js";
import { LOGIN_WINDOW_SECONDS } from "../../src/admin/login-limit.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

function login(password: string, remoteAddress: string) {
  return t.app.inject({
    method: "POST",
    url: "/api/v1/admin/auth/login",
    payload: { password },
    remoteAddress,
  });
}

describe("admin login limiter", () => {
  // Each case starts with an empty window: the owner's failures also count per account
  // (test/admin/client-ip.test.ts), and these cases are about the per-IP count.
  beforeEach(() => {
    t.clock.advanceSeconds(LOGIN_WINDOW_SECONDS + 1);
  });

  it("refuses the 6th attempt in 15 minutes with 429 RATE_LIMITED and Retry-After, then allows again", async () => {
    const ip = "198.51.100.10";
    const start = t.clock.now().getTime();
    for (let i = 0; i < 5; i++) {
      expect((await login("wrong password", ip)).statusCode).toBe(401);
      t.clock.advanceSeconds(60);
    }
    // Four minutes after the first attempt (attempts at +0..+4 min), even the right password is refused.
    t.clock.set(new Date(start + 5 * 60_000));
    const refused = await login(TEST_ADMIN_PASSWORD, ip);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: expect.any(String), code: "RATE_LIMITED" });
    expect(refused.headers["set-cookie"]).toBeUndefined();
    // The oldest counted attempt leaves the window 10 minutes from now.
    expect(refused.headers["retry-after"]).toBe(String(LOGIN_WINDOW_SECONDS - 5 * 60));

    t.clock.set(new Date(start + LOGIN_WINDOW_SECONDS * 1000 - 1000));
    const stillRefused = await login(TEST_ADMIN_PASSWORD, ip);
    expect(stillRefused.statusCode).toBe(429);
    expect(stillRefused.headers["retry-after"]).toBe("1");

    t.clock.set(new Date(start + LOGIN_WINDOW_SECONDS * 1000));
    const allowed = await login(TEST_ADMIN_PASSWORD, ip);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.headers["set-cookie"]).toBeDefined();
  });

  it("counts per client IP: another address is unaffected", async () => {
    const blocked = "198.51.100.20";
    for (let i = 0; i < 5; i++) await login("wrong password", blocked);
    expect((await login("wrong password", blocked)).statusCode).toBe(429);
    expect((await login(TEST_ADMIN_PASSWORD, "198.51.100.21")).statusCode).toBe(200);
    expect((await login("wrong password", "2001:db8::1")).statusCode).toBe(401);
  });

  it("counts successful logins too", async () => {
    const ip = "198.51.100.30";
    for (let i = 0; i < 5; i++) expect((await login(TEST_ADMIN_PASSWORD, ip)).statusCode).toBe(200);
    expect((await login(TEST_ADMIN_PASSWORD, ip)).statusCode).toBe(429);
  });

  it("does not count refused attempts: hammering does not extend the lock-out", async () => {
    const ip = "198.51.100.40";
    const start = t.clock.now().getTime();
    for (let i = 0; i < 5; i++) await login("wrong password", ip);
    for (let i = 0; i < 20; i++) {
      t.clock.advanceSeconds(30);
      expect((await login("wrong password", ip)).statusCode).toBe(429);
    }
    t.clock.set(new Date(start + LOGIN_WINDOW_SECONDS * 1000));
    expect((await login(TEST_ADMIN_PASSWORD, ip)).statusCode).toBe(200);
  });

  it("holds under concurrent attempts: exactly 5 of 12 simultaneous logins are counted", async () => {
    const ip = "198.51.100.50";
    const replies = await Promise.all(Array.from({ length: 12 }, () => login("wrong password", ip)));
    const statuses = replies.map((reply) => reply.statusCode).sort();
    expect(statuses.filter((status) => status === 401)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(7);
  });

  it("prunes attempts older than the window", async () => {
    const ip = "198.51.100.60";
    await login("wrong password", ip);
    t.clock.advanceSeconds(LOGIN_WINDOW_SECONDS + 1);
    await login("wrong password", "198.51.100.61");
    const rows = await t.ctx.db.select().from(loginAttempts);
    const oldest = Math.min(...rows.map((row) => row.attemptedAt.getTime()));
    expect(t.clock.now().getTime() - oldest).toBeLessThanOrEqual(LOGIN_WINDOW_SECONDS * 1000);
    expect(rows.some((row) => row.clientIp === ip)).toBe(false);
  });
});
