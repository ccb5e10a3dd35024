/**
 * Per-chain status with an EVM chain enabled beside TRON (an Anvil devnet): GET /api/v1/admin/chain
 * lists every enabled chain with its head, finalized head, lag and nodes; the published status is
 * per chain; the chain alerts are per chain (keyed `<alert>:<chain>`, with `chain` in the details);
 * and the metrics text carries a `chain` label on node calls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateAlerts } from "../../src/alerts/evaluate-alerts.js";
import { publishChainStatus, readChainStatus } from "../../src/chain/chain-status.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmDevnetForFile } from "../helpers/evm-devnet.js";
import { queryRows } from "../../src/db/query-rows.js";
import { sql } from "drizzle-orm";

const devnet = evmDevnetForFile({ finalityDepth: 4 });
let t: TestApp;
let cookie: string;

beforeAll(async () => {
  const d = devnet();
  t = await createTestApp({
    env: {
      CHAINS: "tron,ethereum",
      ETHEREUM_NETWORK: "devnet",
      ETHEREUM_RPC_URL: d.rpcUrl,
      ETHEREUM_USDC_CONTRACT: d.usdcContract,
      ETHEREUM_USDT_CONTRACT: d.usdtContract,
      ETHEREUM_FINALITY: "4",
    },
  });
  t.clock.set(new Date());
  cookie = await adminCookie(t.app);
  await d.mine(10);
}, 120_000);

afterAll(async () => {
  await t?.close();
});

interface Entry {
  chain: string;
  chain_name: string;
  network: string;
  currencies: string[];
  source: string;
  head: number | null;
  finalized: number | null;
  finality_lag_blocks: number | null;
  scanned: number | null;
  nodes: { node: string; url: string; state: string }[];
}

async function overview(): Promise<{ head: number | null; chains: Entry[] }> {
  const res = await t.app.inject({ method: "GET", url: "/api/v1/admin/chain", headers: { cookie } });
  expect(res.statusCode).toBe(200);
  return res.json();
}

describe("every enabled chain's status", () => {
  it("lists TRON and Ethereum with head, finalized head, lag and nodes", async () => {
    const d = devnet();
    const head = Number(BigInt(await d.rpc<string>("eth_blockNumber", [])));
    const body = await overview();
    expect(body.chains.map((c) => c.chain)).toEqual(["tron", "ethereum"]);
    const [tron, ethereum] = body.chains as [Entry, Entry];
    // TRON's node (127.0.0.1:1 in the test config) does not answer: unknown, not an error.
    expect(tron).toMatchObject({ chain_name: "TRON", head: null, finalized: null, currencies: ["USDT"] });
    expect(body.head).toBe(tron.head);
    expect(ethereum).toMatchObject({
      chain_name: "Ethereum",
      network: "devnet",
      source: "this process",
      head,
      // Four confirmations: the final block has three blocks on top of it.
      finalized: head - 3,
      finality_lag_blocks: 3,
      scanned: null,
    });
    expect(ethereum.currencies.sort()).toEqual(["USDC", "USDT"]);
    expect(ethereum.nodes).toMatchObject([{ node: "node-1", url: d.rpcUrl, state: "healthy" }]);
  });

  it("shows what each chain's scanner published, per chain", async () => {
    const d = devnet();
    const ethereum = t.ctx.chains.get("ethereum")!;
    await d.mine(2);
    const head = await ethereum.headNumber();
    ethereum.observeHead(head);
    await publishChainStatus(t.ctx, ethereum);
    expect(await readChainStatus(t.ctx, "tron")).toBeUndefined();
    expect(await readChainStatus(t.ctx, "ethereum")).toMatchObject({ head, finalized: head - 3 });
    await d.mine(5); // the published row stands for the chain until the next publication
    const entry = (await overview()).chains.find((c) => c.chain === "ethereum");
    expect(entry).toMatchObject({ source: "scanner", head, finalized: head - 3 });
    expect((await overview()).chains.find((c) => c.chain === "tron")?.source).toBe("this process");
  });
});

describe("chain alerts and metrics per chain", () => {
  it("keys node_down per chain: TRON's fires, Ethereum's does not", async () => {
    await evaluateAlerts(t.ctx, { headFreshMs: 0 }); // the clocks start
    t.clock.advance((t.ctx.config.alerts.nodeDownSeconds + 1) * 1000);
    const result = await evaluateAlerts(t.ctx, { headFreshMs: 0 });
    expect(result.fired).toContain("node_down");
    const rows = await queryRows<{ key: string; chain: string; text: string }>(
      t.ctx.db,
      sql`SELECT key, details->>'chain' AS chain, text FROM alerts
          WHERE alert = 'node_down' AND kind = 'condition' AND state = 'firing'`,
    );
    expect(rows).toEqual([
      { key: "node_down:tron", chain: "tron", text: expect.stringMatching(/^No TRON node has answered/) },
    ]);
  });

  it("labels node calls with their chain in the metrics text", async () => {
    await overview();
    const text = (await t.app.inject({ method: "GET", url: "/metrics" })).body;
    expect(text).toMatch(
      /stablegate_node_calls_total\{node="http:\/\/127\.0\.0\.1:\d+",endpoint="eth_blockNumber",result="ok",chain="ethereum"\} [1-9]/,
    );
    expect(text).toMatch(
      /stablegate_node_calls_total\{node="http:\/\/127\.0\.0\.1:1",[^}]*result="error",chain="tron"\} [1-9]/,
    );
  });
});
