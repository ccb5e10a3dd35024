/**
 * A scrape never reads the database (DESIGN.md 11): the database-derived gauges come from the
 * snapshot a timer loaded into memory. Proven by closing the database and scraping again: the api
 * app and the worker's ops app still answer 200 with the same values. A scrape that queried would
 * fail on the closed database. This is also what keeps /metrics cheap under load (bench:memory).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext, type Context } from "../../src/context.js";
import { buildApp } from "../../src/http/app.js";
import { buildOpsApp } from "../../src/http/ops-app.js";
import { createLogger } from "../../src/logger.js";
import { readMetricsSnapshot } from "../../src/metrics/metrics-snapshot.js";
import { refreshMetricsSnapshot } from "../../src/metrics/refresh-metrics-snapshot.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { FakeClock } from "../helpers/clock.js";
import { testConfig } from "../helpers/config.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";

const TOKEN = "scrape-metrics-token-0123456789";

function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("GET /metrics with the database closed", () => {
  let testDb: TestDatabase;
  let ctx: Context;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    ctx = await createContext(testConfig({ METRICS_TOKEN: TOKEN }), {
      database: testDb.database,
      clock: new FakeClock(),
      log: createLogger({ level: "silent" }),
    });
  });
  afterAll(() => testDb.drop());

  it("answers the same values from memory, on the api and on the worker's listener", async () => {
    await fillAddressPool(ctx);
    expect((await refreshMetricsSnapshot(ctx)).refreshed).toBe(true);
    await readMetricsSnapshot(ctx);
    const apps = [await buildApp(ctx), await buildOpsApp(ctx)];
    try {
      const scrape = async (index: number) => {
        const res = await apps[index]!.inject({
          method: "GET",
          url: "/metrics",
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        return { status: res.statusCode, free: sample(res.body, "stablegate_address_pool_free_addresses") };
      };
      const open = [await scrape(0), await scrape(1)];
      expect(open[0]).toEqual({ status: 200, free: expect.any(Number) });
      expect(open[0]!.free).toBeGreaterThan(0);
      expect(open[1]).toEqual(open[0]);

      await testDb.database.close();
      await expect(testDb.database.ping()).rejects.toThrow();
      expect([await scrape(0), await scrape(1)]).toEqual(open);
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });
});
