/**
 * Logs fit for operators: every line logged while serving a request carries that request's id, and
 * every line of a background step names the order or settlement it worked on. The logger is the
 * real pino logger writing into memory.
 */
import type { InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settlements } from "../../src/db/schema.js";
import { newId } from "../../src/ids.js";
import { createLogger } from "../../src/logger.js";
import { createOrder } from "../../src/payments/create-order.js";
import { expireOrders } from "../../src/payments/expire-orders.js";
import { runDueSweeps } from "../../src/sweeps/run-sweeps.js";
import { uniqueIp } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { addMerchant } from "../payments/helpers.js";

type Line = Record<string, unknown> & { msg?: string };

let t: TestApp;
const lines: Line[] = [];

beforeAll(async () => {
  const log = createLogger({
    level: "debug",
    destination: { write: (chunk: string) => void lines.push(JSON.parse(chunk) as Line) },
  });
  t = await createTestApp({ log });
});
afterAll(() => t.close());

/** Runs fn and returns the lines it logged. */
async function captured(fn: () => Promise<unknown>): Promise<Line[]> {
  const from = lines.length;
  await fn();
  return lines.slice(from);
}

describe("request logs", () => {
  it("tag every line of a request, including the domain's own lines, with the request id", async () => {
    const ids: string[] = [];
    const logged = await captured(async () => {
      const send = async (id: string, options: InjectOptions) => {
        ids.push(id);
        const reply = await t.app.inject({
          ...options,
          headers: { ...(options.headers ?? {}), "x-request-id": id },
        });
        expect(reply.headers["x-request-id"]).toBe(id);
        return reply;
      };
      // A failed login (domain line "admin login failed"), a good one ("admin logged in").
      await send("req-login-bad-0001", {
        method: "POST",
        url: "/api/v1/admin/auth/login",
        payload: { password: "wrong password here" },
        remoteAddress: uniqueIp(),
      });
      const login = await send("req-login-good-0002", {
        method: "POST",
        url: "/api/v1/admin/auth/login",
        payload: { password: TEST_ADMIN_PASSWORD },
        remoteAddress: uniqueIp(),
      });
      const cookie = String(login.headers["set-cookie"]).split(";")[0] ?? "";
      // "merchant created", then the wallet status whose node is unreachable ("hot wallet balance
      // unavailable"), then a refused body ("request refused").
      await send("req-merchant-0003", {
        method: "POST",
        url: "/api/v1/admin/merchants",
        headers: { cookie },
        payload: { name: "Log shop", webhook_secret: "whsec_log_shop_0123456789abcdef" },
      });
      await send("req-wallet-0004", { method: "GET", url: "/api/v1/admin/wallet", headers: { cookie } });
      await send("req-bad-body-0005", {
        method: "POST",
        url: "/api/v1/admin/merchants",
        headers: { cookie, "content-type": "application/json" },
        payload: "{not json",
      });
    });
    const messages = (id: string) => logged.filter((line) => line.reqId === id).map((line) => line.msg);
    expect(messages("req-login-bad-0001")).toContain("admin login failed");
    expect(messages("req-login-good-0002")).toContain("admin logged in");
    expect(messages("req-merchant-0003")).toContain("merchant created");
    expect(messages("req-wallet-0004")).toContain("hot wallet balance unavailable");
    expect(messages("req-bad-body-0005")).toContain("request refused");
    // Nothing logged during these requests lacks the id of the request it belongs to.
    const untagged = logged.filter((line) => typeof line.reqId !== "string" || !ids.includes(line.reqId));
    expect(untagged).toEqual([]);
  });
});

describe("background step logs", () => {
  it("name the settlement and the order of a sweep step", async () => {
    const merchant = await addMerchant(t.ctx);
    const { order } = await createOrder(t.ctx, merchant, {
      externalId: `log-sweep-${newId()}`,
      amount: "5",
      currency: "USDT",
      callbackUrl: "https://merchant.example.com/hook",
    });
    const settlementId = newId();
    const now = t.clock.now();
    await t.ctx.db.insert(settlements).values({
      id: settlementId,
      orderId: order.id,
      address: order.address,
      status: "waiting",
      attempts: 0,
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    });
    // The node is unreachable: the step logs that it waits for the node.
    const logged = await captured(() => runDueSweeps(t.ctx));
    const sweepLines = logged.filter((line) => String(line.msg).startsWith("sweep"));
    expect(sweepLines.map((line) => line.msg)).toContain("sweep waits for the node");
    for (const line of sweepLines) {
      expect(line).toMatchObject({ settlementId, orderId: order.id });
    }
  });

  it("name the orders an expiry pass expired", async () => {
    const merchant = await addMerchant(t.ctx);
    const { order } = await createOrder(t.ctx, merchant, {
      externalId: `log-expire-${newId()}`,
      amount: "5",
      currency: "USDT",
      callbackUrl: "https://merchant.example.com/hook",
      expiresIn: 60,
    });
    t.clock.advance(3_600_000);
    const logged = await captured(() => expireOrders(t.ctx));
    const line = logged.find((entry) => entry.msg === "orders expired");
    expect(line?.orderIds).toContain(order.id);
  });
});
