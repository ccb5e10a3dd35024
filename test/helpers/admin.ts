/**
 * Admin helpers for tests that need a session or a merchant. Each login comes from its own client
 * address, so helpers never eat into the login limiter of the address a test is exercising.
 */
import type { FastifyInstance } from "fastify";
import { TEST_ADMIN_PASSWORD } from "./config.js";

let nextAddress = 1;

/** A fresh client IP (10.77.x.y) per call. */
export function uniqueIp(): string {
  const n = nextAddress++;
  return `10.77.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
}

/** Logs in through the real endpoint and returns the Cookie header value ("admin_token=..."). */
export async function adminCookie(app: FastifyInstance, password = TEST_ADMIN_PASSWORD): Promise<string> {
  const reply = await app.inject({
    method: "POST",
    url: "/api/v1/admin/auth/login",
    payload: { password },
    remoteAddress: uniqueIp(),
  });
  if (reply.statusCode !== 200) throw new Error(`login failed: ${reply.statusCode} ${reply.body}`);
  const setCookie = reply.headers["set-cookie"];
  const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  const pair = first?.split(";")[0];
  if (!pair?.startsWith("admin_token=")) throw new Error("login set no admin_token cookie");
  return pair;
}

export interface CreatedMerchantReply {
  id: string;
  name: string;
  api_key: string;
  api_key_prefix: string;
  webhook_secret: string;
  is_active: boolean;
  created_at: string;
}

/** Creates a merchant through POST /api/v1/admin/merchants. */
export async function createMerchantViaApi(
  app: FastifyInstance,
  cookie: string,
  body: Record<string, unknown> = { name: "Test Shop", webhook_secret: "whsec-test-0123456789" },
): Promise<CreatedMerchantReply> {
  const reply = await app.inject({
    method: "POST",
    url: "/api/v1/admin/merchants",
    headers: { cookie },
    payload: body,
  });
  if (reply.statusCode !== 201) throw new Error(`create merchant failed: ${reply.statusCode} ${reply.body}`);
  return reply.json<CreatedMerchantReply>();
}
