/**
 * The embedded demo as a newcomer runs it: `npm start` with nothing configured (startService, role
 * all, PGlite in DATA_DIR) runs tron and ethereum side by side, and `npm run demo:pay -- <order id>`
 * (the real script, in its own process) pays a TRON USDT order and an Ethereum USDC order each on
 * its own chain; both confirm.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { startService, type RunningService } from "../../src/server.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { poll } from "../helpers/poll.js";
import { closedPort } from "../sdk/helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
let service: RunningService | undefined;
let env: Record<string, string>;
let baseUrl: string;

beforeAll(async () => {
  const port = await closedPort();
  baseUrl = `http://127.0.0.1:${port}`;
  env = {
    NODE_ENV: "development",
    DATA_DIR: mkdtempSync(join(tmpdir(), "stablegate-demo-pay-")),
    PORT: String(port),
    PUBLIC_BASE_URL: baseUrl,
    ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    LOG_LEVEL: "silent",
    CONFIRMATIONS: "3",
    DEVNET_BLOCK_TIME_MS: "250",
  };
  service = await startService(loadConfig(env), "all", { env });
}, 180_000);

afterAll(async () => {
  await service?.stop();
}, 60_000);

async function json<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(baseUrl + path, init);
  return { status: res.status, body: (await res.json()) as T };
}

function demoPay(orderId: string): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/chains/demo-pay.ts", orderId], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, out }));
  });
}

describe("npm start + npm run demo:pay", () => {
  it("runs tron and ethereum, and pays a TRON USDT and an Ethereum USDC order each on its own chain", async () => {
    expect(service?.ctx.chains.list.map((c) => c.id)).toEqual(["tron", "ethereum"]);
    const login = await fetch(`${baseUrl}/api/v1/admin/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: TEST_ADMIN_PASSWORD }),
    });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const merchant = await json<{ api_key: string }>("/api/v1/admin/merchants", {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ name: "Demo Shop", webhook_secret: "demo-webhook-secret-0123456789" }),
    });
    expect(merchant.status).toBe(201);
    const headers = { "content-type": "application/json", "x-api-key": merchant.body.api_key };
    const create = (body: object) =>
      json<{ id: string; address: string; chain: string; currency: string }>("/api/v1/payments", {
        method: "POST",
        headers,
        body: JSON.stringify({ amount: "12.5", callback_url: "https://example.com/hook", ...body }),
      });
    const tron = await create({ external_id: "demo-tron", currency: "USDT" });
    const eth = await create({ external_id: "demo-eth", currency: "USDC", chain: "ethereum" });
    expect([tron.status, eth.status]).toEqual([201, 201]);
    expect(eth.body).toMatchObject({ chain: "ethereum", currency: "USDC" });
    expect(eth.body.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(tron.body.address).toMatch(/^T/);

    for (const order of [tron.body, eth.body]) {
      const paid = await demoPay(order.id);
      expect(paid.code, paid.out).toBe(0);
      expect(paid.out).toContain(`on ${order.chain} to ${order.address}`);
    }
    for (const order of [tron.body, eth.body]) {
      const done = await poll(
        `order ${order.id} on ${order.chain} confirmed`,
        async () =>
          (
            await json<{ status: string; amount_received: string; chain: string }>(
              `/api/v1/payments/${order.id}`,
              { headers },
            )
          ).body,
        {
          timeoutMs: 60_000,
          intervalMs: 250,
          until: (o) => o.status === "confirmed" || o.status === "completed",
        },
      );
      expect(done).toMatchObject({ amount_received: "12.500000", chain: order.chain });
    }
  });

  it("refuses an order that does not exist, saying so", async () => {
    const paid = await demoPay("00000000-0000-4000-8000-000000000000");
    expect(paid.code).toBe(1);
    expect(paid.out).toContain("not found");
  });
});
