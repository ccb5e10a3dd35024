import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { MAX_HEALTHY_LAG } from "../../src/chain/check-chain.js";
import { buildApp } from "../../src/http/app.js";
import { startChainTest, type ChainTest } from "./helpers.js";

let t: ChainTest;
let app: FastifyInstance;

beforeAll(async () => {
  t = await startChainTest();
  app = await buildApp(t.ctx);
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await t.close();
});

async function health(): Promise<{
  statusCode: number;
  body: { status: string; checks: { chain: unknown } };
}> {
  const reply = await app.inject({ method: "GET", url: "/api/v1/health" });
  return { statusCode: reply.statusCode, body: reply.json() };
}

describe("chain health", () => {
  it("is degraded until the scanner has scanned, then ok with head, scanned and lag", async () => {
    let r = await health();
    expect(r.statusCode).toBe(200);
    expect(r.body.status).toBe("degraded");
    expect(r.body.checks.chain).toMatchObject({
      status: "degraded",
      scanned: null,
      error: "not scanned yet",
    });

    await t.scanner.sync();
    t.mine(2);
    await t.scanner.sync();
    r = await health();
    const head = t.mine(0);
    expect(r.body.status).toBe("ok");
    expect(r.body.checks.chain).toEqual({
      status: "ok",
      network: "devnet",
      head,
      scanned: head,
      lag: 0,
      nodes: [
        {
          node: "node-1",
          state: "healthy",
          active: true,
          head,
          lag: null,
          calls: expect.any(Number) as number,
          errors: 0,
        },
      ],
    });
  });

  it(`is degraded (still 200) when the scanner is more than ${MAX_HEALTHY_LAG} blocks behind`, async () => {
    const head = t.mine(MAX_HEALTHY_LAG + 5);
    // A slow scanner: it sees the new head but gets through one block only.
    await t.newScanner({ maxBlocksPerPass: 1 }).scanOnce();
    const r = await health();
    expect(r.statusCode).toBe(200);
    expect(r.body.status).toBe("degraded");
    expect(r.body.checks.chain).toMatchObject({
      status: "degraded",
      head,
      scanned: head - MAX_HEALTHY_LAG - 4,
      lag: MAX_HEALTHY_LAG + 4,
      error: "scanner behind",
    });
    await t.scanner.sync();
    expect((await health()).body.status).toBe("ok");
  });
});
