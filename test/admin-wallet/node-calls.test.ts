/**
 * What GET /api/v1/admin/wallet costs the TRON node. Dashboards poll the wallet page, so the hot
 * wallet's balance and (delegate mode) its stake are read from the node at most every 10 s, on the
 * clock: every request builds its own context, and the caches must outlive it. The service reaches
 * the devnet through a counting HTTP proxy, so the test counts the calls the node receives.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type Devnet } from "@stablegate/devnet";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

const HOT_KEY = "2e".repeat(32);
const HOT = TronWeb.address.fromPrivateKey(HOT_KEY) as string;

interface CountingProxy {
  url: string;
  /** Paths of the calls forwarded so far, in order. */
  calls: string[];
  close(): Promise<void>;
}

/** A real HTTP server that forwards every request to `target` and records its path. */
async function startCountingProxy(target: string): Promise<CountingProxy> {
  const calls: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      calls.push((req.url ?? "").split("?")[0] as string);
      const body = Buffer.concat(chunks);
      fetch(target + (req.url ?? ""), {
        method: req.method,
        headers: { "content-type": req.headers["content-type"] ?? "application/json" },
        ...(body.length > 0 ? { body } : {}),
      })
        .then(async (answer) => {
          res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "" });
          res.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let devnet: Devnet;
let proxy: CountingProxy;
let t: TestApp;
let cookie: string;

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, solidifyAfter: 1, quiet: true });
  const funded = await fetch(`${devnet.url}/devnet/fund`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address: HOT, trx: "5000", solidify: true }),
  });
  expect(funded.status).toBe(200);
  // A real stake, so the cached answer has something to be wrong about.
  const tw = new TronWeb({ fullHost: devnet.url, privateKey: HOT_KEY });
  const frozen = await tw.trx.sendRawTransaction(
    await tw.trx.sign(await tw.transactionBuilder.freezeBalanceV2(1_000 * 1_000_000, "ENERGY", HOT), HOT_KEY),
  );
  expect(frozen.result).toBe(true);
  devnet.mine(2);
  proxy = await startCountingProxy(devnet.url);
  t = await createTestApp({
    env: {
      TRON_NODE_URL: proxy.url,
      USDT_CONTRACT: devnet.usdtContract,
      HOT_WALLET_PRIVATE_KEY: HOT_KEY,
      SWEEP_MODE: "delegate",
    },
  });
  cookie = await adminCookie(t.app);
});
afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await devnet?.close();
});

async function wallet(): Promise<{ body: Record<string, unknown>; calls: string[] }> {
  const before = proxy.calls.length;
  const reply = await t.app.inject({ method: "GET", url: "/api/v1/admin/wallet", headers: { cookie } });
  expect(reply.statusCode).toBe(200);
  return { body: reply.json() as Record<string, unknown>, calls: proxy.calls.slice(before) };
}

describe("GET /api/v1/admin/wallet in delegate mode", () => {
  it("asks the node for the balance and the stake once per 10 s of the clock, however many requests come", async () => {
    const first = await wallet();
    expect(first.calls.sort()).toEqual(
      [
        "/wallet/getaccount",
        "/wallet/getaccount",
        "/wallet/getaccountresource",
        "/wallet/getcandelegatedmaxsize",
        "/wallet/getdelegatedresourceaccountindexv2",
        // USDT balanceOf of the hot and the cold wallet
        "/wallet/triggerconstantcontract",
        "/wallet/triggerconstantcontract",
      ].sort(),
    );
    expect(first.body.stake).toMatchObject({ staked_trx: "1000.000000", delegations_open: 0 });
    expect(first.body.hot_wallet).toMatchObject({ address: HOT, trx_balance: "4000.000000" });

    for (let i = 0; i < 3; i++) {
      t.clock.advance(3_000);
      const again = await wallet();
      expect(again.calls, `request ${i + 2}, ${3 * (i + 1)} s later`).toEqual([]);
      expect(again.body.stake).toEqual(first.body.stake);
      expect(again.body.hot_wallet).toEqual(first.body.hot_wallet);
    }

    // 10 s after the first reading the node is asked again (the clock, not the wall clock, decides).
    t.clock.advance(1_000);
    expect((await wallet()).calls).toHaveLength(7);
  });
});
