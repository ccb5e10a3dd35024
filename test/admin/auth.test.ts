import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignJWT } from "jose";
import { ADMIN_SESSION_SECONDS, passwordBinding, signAdminToken } from "../../src/admin/admin-token.js";
import { BUILTIN_OWNER_ID } from "../../src/admin/operator-types.js";
import { createSession } from "../../src/admin/sessions.js";
import { adminCookie, uniqueIp } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_ADMIN_PASSWORD, testConfig } from "../helpers/config.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const ADMIN_ROUTES = [
  { method: "GET", url: "/api/v1/admin/merchants" },
  { method: "POST", url: "/api/v1/admin/merchants" },
  { method: "GET", url: "/api/v1/admin/merchants/00000000-0000-4000-8000-000000000000" },
  { method: "PUT", url: "/api/v1/admin/merchants/00000000-0000-4000-8000-000000000000" },
  { method: "POST", url: "/api/v1/admin/merchants/00000000-0000-4000-8000-000000000000/rotate-api-key" },
] as const;

/** A live session row of the built-in owner: forged tokens below carry its id, so only the forgery differs. */
async function ownerSessionId(): Promise<string> {
  return (await createSession(t.ctx, t.ctx.db, { operatorId: BUILTIN_OWNER_ID })).id;
}

function login(password: unknown, remoteAddress = uniqueIp()) {
  return t.app.inject({
    method: "POST",
    url: "/api/v1/admin/auth/login",
    payload: { password },
    remoteAddress,
  });
}

function setCookieHeader(reply: { headers: Record<string, unknown> }): string {
  const header = reply.headers["set-cookie"];
  const value = Array.isArray(header) ? header[0] : header;
  expect(typeof value).toBe("string");
  return value as string;
}

function listMerchants(headers: Record<string, string>) {
  return t.app.inject({ method: "GET", url: "/api/v1/admin/merchants", headers });
}

describe("POST /api/v1/admin/auth/login", () => {
  it("answers 200 {ok:true} and sets an httpOnly, SameSite=Strict, 24 h admin_token cookie on path /", async () => {
    const reply = await login(TEST_ADMIN_PASSWORD);
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toEqual({ ok: true });
    const cookie = setCookieHeader(reply);
    expect(cookie).toMatch(/^admin_token=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+;/);
    const attributes = cookie.split(";").map((part) => part.trim().toLowerCase());
    expect(attributes).toContain("httponly");
    expect(attributes).toContain("samesite=strict");
    expect(attributes).toContain("path=/");
    expect(attributes).toContain("max-age=86400");
    expect(attributes).not.toContain("secure");
  });

  it("answers 401 INVALID_PASSWORD for a wrong password and sets no cookie", async () => {
    const reply = await login("not the password");
    expect(reply.statusCode).toBe(401);
    expect(reply.json()).toEqual({ error: expect.any(String), code: "INVALID_PASSWORD" });
    expect(reply.headers["set-cookie"]).toBeUndefined();
  });

  it("rejects a password that only shares a prefix with the real one", async () => {
    expect((await login(TEST_ADMIN_PASSWORD.slice(0, -1))).statusCode).toBe(401);
    expect((await login(`${TEST_ADMIN_PASSWORD} `)).statusCode).toBe(401);
  });

  it("answers 400 INVALID_BODY for a missing or non-string password", async () => {
    for (const payload of [{}, { password: 123 }, { password: null }, { password: "" }, []]) {
      const reply = await t.app.inject({
        method: "POST",
        url: "/api/v1/admin/auth/login",
        payload,
        remoteAddress: uniqueIp(),
      });
      expect(reply.statusCode, JSON.stringify(payload)).toBe(400);
      expect(reply.json().code).toBe("INVALID_BODY");
    }
  });

  it("issues a cookie that opens the admin API", async () => {
    const cookie = await adminCookie(t.app);
    const reply = await listMerchants({ cookie });
    expect(reply.statusCode).toBe(200);
  });
});

describe("secure cookie in production", () => {
  let prod: TestApp;
  beforeAll(async () => {
    prod = await createTestApp({ env: { NODE_ENV: "production", TRON_NETWORK: "nile" } });
  });
  afterAll(async () => {
    await prod.close();
  });

  it("marks the admin_token cookie Secure when the config is production", async () => {
    const reply = await prod.app.inject({
      method: "POST",
      url: "/api/v1/admin/auth/login",
      payload: { password: TEST_ADMIN_PASSWORD },
    });
    expect(reply.statusCode).toBe(200);
    const attributes = setCookieHeader(reply)
      .split(";")
      .map((part) => part.trim().toLowerCase());
    expect(attributes).toContain("secure");
    expect(attributes).toContain("httponly");
    expect(attributes).toContain("samesite=strict");
  });
});

describe("POST /api/v1/admin/auth/logout", () => {
  it("answers {ok:true} and clears the cookie with the same attributes", async () => {
    const cookie = await adminCookie(t.app);
    const reply = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/auth/logout",
      headers: { cookie },
    });
    expect(reply.statusCode).toBe(200);
    expect(reply.json()).toEqual({ ok: true });
    const cleared = setCookieHeader(reply);
    expect(cleared).toMatch(/^admin_token=;/);
    const attributes = cleared.split(";").map((part) => part.trim().toLowerCase());
    expect(attributes).toContain("path=/");
    expect(attributes).toContain("httponly");
    expect(attributes).toContain("samesite=strict");
    expect(attributes.some((a) => a === "max-age=0" || a.startsWith("expires=thu, 01 jan 1970"))).toBe(true);
  });

  it("works without a cookie and with a broken one, and with an empty JSON body", async () => {
    for (const headers of [{}, { cookie: "admin_token=garbage" }, { "content-type": "application/json" }]) {
      const reply = await t.app.inject({ method: "POST", url: "/api/v1/admin/auth/logout", headers });
      expect(reply.statusCode).toBe(200);
    }
  });
});

describe("admin session check", () => {
  it("answers 401 ADMIN_UNAUTHORIZED on every admin route without the cookie", async () => {
    for (const route of ADMIN_ROUTES) {
      const reply = await t.app.inject({ method: route.method, url: route.url });
      expect(reply.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(reply.json()).toEqual({ error: expect.any(String), code: "ADMIN_UNAUTHORIZED" });
    }
  });

  it("answers 401 ADMIN_TOKEN_INVALID on every admin route with a bad cookie", async () => {
    for (const route of ADMIN_ROUTES) {
      const reply = await t.app.inject({
        method: route.method,
        url: route.url,
        headers: { cookie: "admin_token=not-a-jwt" },
      });
      expect(reply.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(reply.json().code).toBe("ADMIN_TOKEN_INVALID");
    }
  });

  it("ignores a Bearer token: a valid JWT in Authorization alone is ADMIN_UNAUTHORIZED", async () => {
    const token = (await adminCookie(t.app)).slice("admin_token=".length);
    const reply = await listMerchants({ authorization: `Bearer ${token}` });
    expect(reply.statusCode).toBe(401);
    expect(reply.json().code).toBe("ADMIN_UNAUTHORIZED");
  });

  it("treats an empty admin_token cookie as no cookie", async () => {
    const reply = await listMerchants({ cookie: "admin_token=" });
    expect(reply.json().code).toBe("ADMIN_UNAUTHORIZED");
  });

  it("rejects a token whose payload was altered", async () => {
    const token = (await adminCookie(t.app)).slice("admin_token=".length);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, exp: Number(claims.exp) + 86400 * 365 })).toString(
      "base64url",
    );
    const reply = await listMerchants({ cookie: `admin_token=${header}.${forged}.${signature}` });
    expect(reply.statusCode).toBe(401);
    expect(reply.json().code).toBe("ADMIN_TOKEN_INVALID");
  });

  it("rejects a token whose signature was altered", async () => {
    const token = (await adminCookie(t.app)).slice("admin_token=".length);
    // The signature's first character: the last one of a 43-character base64url signature carries
    // only 4 bits, so changing it can leave the decoded signature as it was (and the token valid).
    const at = token.lastIndexOf(".") + 1;
    const altered = token[at] === "A" ? "B" : "A";
    const reply = await listMerchants({
      cookie: `admin_token=${token.slice(0, at)}${altered}${token.slice(at + 1)}`,
    });
    expect(reply.json().code).toBe("ADMIN_TOKEN_INVALID");
  });

  it("rejects an unsigned (alg none) token", async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const pwd = passwordBinding(t.ctx.config.sessionSecret, t.ctx.config.adminPassword);
    const token = `${encode({ alg: "none", typ: "JWT" })}.${encode({
      sid: await ownerSessionId(),
      sub: "admin",
      aud: "stablegate-admin",
      pwd,
      iat: now,
      exp: now + 3600,
    })}.`;
    const reply = await listMerchants({ cookie: `admin_token=${token}` });
    expect(reply.json().code).toBe("ADMIN_TOKEN_INVALID");
  });

  it("rejects a token signed with another secret", async () => {
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const token = await new SignJWT({
      sid: await ownerSessionId(),
      pwd: passwordBinding("another-secret-0123456789abcdef0123456789", TEST_ADMIN_PASSWORD),
    })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("admin")
      .setAudience("stablegate-admin")
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(new TextEncoder().encode("another-secret-0123456789abcdef0123456789"));
    const reply = await listMerchants({ cookie: `admin_token=${token}` });
    expect(reply.json().code).toBe("ADMIN_TOKEN_INVALID");
  });

  it("rejects a token issued before ADMIN_PASSWORD changed", async () => {
    const before = { ...t.ctx, config: testConfig({ ADMIN_PASSWORD: "the previous admin password" }) };
    const oldToken = await signAdminToken(before, { id: await ownerSessionId(), builtinOwner: true });
    const reply = await listMerchants({ cookie: `admin_token=${oldToken}` });
    expect(reply.statusCode).toBe(401);
    expect(reply.json().code).toBe("ADMIN_TOKEN_INVALID");
    // The same token shape with the current password is accepted: the claim is what differs.
    const current = await signAdminToken(t.ctx, { id: await ownerSessionId(), builtinOwner: true });
    expect((await listMerchants({ cookie: `admin_token=${current}` })).statusCode).toBe(200);
  });

  it("accepts a session until 24 hours and rejects it after", async () => {
    const clock = t.clock.now();
    const cookie = await adminCookie(t.app);
    try {
      t.clock.advanceSeconds(ADMIN_SESSION_SECONDS - 1);
      expect((await listMerchants({ cookie })).statusCode).toBe(200);
      t.clock.advanceSeconds(2);
      const reply = await listMerchants({ cookie });
      expect(reply.statusCode).toBe(401);
      expect(reply.json().code).toBe("ADMIN_TOKEN_INVALID");
    } finally {
      t.clock.set(clock);
    }
  });

  it("rejects a correctly signed token issued two days ago whose exp has passed", async () => {
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const issuedLongAgo = now - 2 * ADMIN_SESSION_SECONDS;
    const token = await new SignJWT({
      sid: await ownerSessionId(),
      pwd: passwordBinding(t.ctx.config.sessionSecret, t.ctx.config.adminPassword),
    })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("admin")
      .setAudience("stablegate-admin")
      .setIssuedAt(issuedLongAgo)
      .setExpirationTime(issuedLongAgo + ADMIN_SESSION_SECONDS)
      .sign(new TextEncoder().encode(t.ctx.config.sessionSecret));
    const reply = await listMerchants({ cookie: `admin_token=${token}` });
    expect(reply.json().code).toBe("ADMIN_TOKEN_INVALID");
  });
});
