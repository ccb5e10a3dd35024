import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateAlerts } from "../../src/alerts/evaluate-alerts.js";
import { publishChainStatus } from "../../src/chain/chain-status.js";
import { createContext } from "../../src/context.js";
import { buildApp, type App } from "../../src/http/app.js";
import { createLogger } from "../../src/logger.js";
import { adminCookie } from "../helpers/admin.js";
import { startChainTest, type ChainTest } from "./helpers.js";

// GET /api/v1/admin/chain: the scanner's lag and the node pool, from this process's own view and
// from what the scanning worker published, for an "api process" that never called a node itself.
// The fallback's URL carries credentials, a path and a query: none of them may be shown.
const FALLBACK = "http://operator:s3cret@127.0.0.1:9/tron?apikey=hunter2";
let t: ChainTest;
let app: App;
let cookie: string;

beforeAll(async () => {
  t = await startChainTest({ nodeUrls: (d) => `${d.url},${FALLBACK}` });
  app = await buildApp(t.ctx);
  cookie = await adminCookie(app);
  await t.scanner.sync();
});
afterAll(async () => {
  await app.close();
  await t.close();
});

interface Reply {
  source: string;
  head: number | null;
  scanned: number | null;
  scanner_lag_blocks: number | null;
  scanner_lag_alert_blocks: number;
  nodes: { node: string; url: string; role: string; state: string; active: boolean; calls: number }[];
}

async function chain(target: App = app): Promise<{ status: number; body: Reply; raw: string }> {
  const res = await target.inject({ method: "GET", url: "/api/v1/admin/chain", headers: { cookie } });
  return { status: res.statusCode, body: res.json(), raw: res.body };
}

describe("GET /api/v1/admin/chain", () => {
  it("needs the admin session", async () => {
    const res = await app.inject({ method: "GET", url: "/api/v1/admin/chain" });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: "ADMIN_UNAUTHORIZED" });
  });

  it("shows this process's nodes and the scanner's lag, never a credential, path or query", async () => {
    const scanned = (await t.cursor()) as number;
    t.mine(3);
    // The head this process saw is reused for 2 s of the clock (the health probe's cache), then
    // read again.
    expect((await chain()).body.head).toBe(scanned);
    t.clock.advance(2_001);
    expect((await chain()).body.head).toBe(scanned + 3);
    const { status, body, raw } = await chain();
    expect(status).toBe(200);
    expect(body).toMatchObject({
      source: "this process",
      head: scanned + 3,
      scanned,
      scanner_lag_blocks: 3,
      scanner_lag_alert_blocks: 40,
    });
    expect(body.nodes).toMatchObject([
      { node: "node-1", url: t.devnet.url, role: "preferred", state: "healthy", active: true },
      { node: "node-2", url: "http://127.0.0.1:9", role: "fallback", active: false },
    ]);
    for (const secret of ["s3cret", "operator", "hunter2", "/tron"]) expect(raw).not.toContain(secret);
  });

  it("shows what the scanning worker published to a process that made no node call", async () => {
    await t.scanner.sync();
    await publishChainStatus(t.ctx, t.ctx.chains.primary);
    const published = t.ctx.chain.client.status()[0]?.calls as number;
    expect(published).toBeGreaterThan(0);
    // An "api process": its own context (and node pool, unused) on the same database.
    const api = await createContext(t.ctx.config, {
      database: t.testDb.database,
      clock: t.clock,
      log: createLogger({ level: "silent" }),
    });
    const apiApp = await buildApp(api);
    try {
      const { body } = await chain(apiApp);
      expect(body).toMatchObject({ source: "scanner", scanner_lag_blocks: 0, scanned: await t.cursor() });
      expect(body.nodes[0]).toMatchObject({
        node: "node-1",
        url: t.devnet.url,
        active: true,
        calls: published,
      });
      // Another worker's alert evaluator takes the published head too: still no node call.
      const evaluated = await evaluateAlerts(api);
      expect(evaluated.fired).not.toContain("scanner_lag");
      expect(evaluated.fired).not.toContain("node_down");
      expect(api.chain.client.status()[0]?.calls).toBe(0);
      // The scanner moves on before it publishes again: the published head is older than the
      // cursor, and the reply never shows a block scanned past the head.
      const before = (await chain(apiApp)).body;
      t.mine(3);
      await t.scanner.sync();
      const after = (await chain(apiApp)).body;
      expect(after.scanned).toBe(await t.cursor());
      expect(after.scanned).toBeGreaterThan(before.head!);
      expect(after.head).toBe(after.scanned);
      expect(after.scanner_lag_blocks).toBe(0);
    } finally {
      await apiApp.close();
      await api.chain.close();
    }
  });
});
