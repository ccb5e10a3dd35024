/**
 * A stray transfer of an 18-decimal token (issue 39 part 7): the scanner records the whole
 * micro-units it carried as the stray's amount (what attaching or refunding can credit) and keeps
 * the sub-micro remainder on the stray, never credited and never dropped; the admin read shows both.
 * Anvil (bsc, whose USDT is the 18-decimal token) over HTTP; PostgreSQL when TEST_DATABASE_URL is
 * set, else PGlite.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import { queryRows } from "../../src/db/query-rows.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { fillAddressPools } from "../../src/wallet/fill-address-pool.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { FAST_RETRY } from "../chain/helpers.js";

const bsc = evmDevnetForFile({ chainId: 56 });
let t: TestApp;
let scanner: Scanner;

beforeAll(async () => {
  t = await createTestApp({
    env: {
      CHAINS: "bsc",
      CONFIRMATIONS: "1",
      POOL_MIN_FREE: "4",
      ...evmChainEnv("bsc", bsc(), bsc().usdt18Contract),
    },
  });
  await fillAddressPools(t.ctx);
  scanner = createScanner(t.ctx, { chain: t.ctx.chains.primary, retry: FAST_RETRY, maxIdleMs: 50 });
  await scanner.sync();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe("a stray transfer of an 18-decimal token", () => {
  it("keeps 1.000000 as its amount and the 0.0000005 below one micro-unit as its remainder", async () => {
    const [free] = await queryRows<{ address: string }>(
      t.ctx.db,
      sql`SELECT address FROM addresses WHERE family = 'evm' AND status = 'free' ORDER BY derivation_index LIMIT 1`,
    );
    expect(free).toBeDefined();
    // 1.0000005 tokens of 18 decimals.
    const hash = await sendToken(bsc(), bsc().usdt18Contract, free!.address, 1_000_000_500_000_000_000n);
    await bsc().mine(1);
    await scanner.sync();
    await bsc().mine(bsc().finalityDepth + 1);
    await scanner.sync();

    const [row] = await queryRows<{
      amount: string;
      remainder: string;
      token_decimals: number;
      status: string;
    }>(
      t.ctx.db,
      sql`SELECT amount::text, remainder::text, token_decimals, status FROM stray_transfers
          WHERE tx_hash = ${hash.toLowerCase()}`,
    );
    expect(row).toEqual({
      amount: "1000000",
      remainder: "500000000000",
      token_decimals: 18,
      status: "confirmed",
    });

    const cookie = await adminCookie(t.app);
    const list = await t.app.inject({
      method: "GET",
      url: "/api/v1/admin/stray-transfers",
      headers: { cookie },
    });
    expect(list.statusCode, list.body).toBe(200);
    const stray = list.json().data.find((s: { tx_hash: string }) => s.tx_hash === hash.toLowerCase());
    expect(stray).toMatchObject({ amount: "1.000000", remainder: "0.000000500000000000", chain: "bsc" });
    const detail = await t.app.inject({
      method: "GET",
      url: `/api/v1/admin/stray-transfers/${stray.id}`,
      headers: { cookie },
    });
    expect(detail.json().stray).toMatchObject({ amount: "1.000000", remainder: "0.000000500000000000" });
    // The stats count the whole micro-units only: the remainder is kept, not credited.
    const stats = (
      await t.app.inject({ method: "GET", url: "/api/v1/admin/stats", headers: { cookie } })
    ).json();
    expect(stats.stray_transfers).toMatchObject({ count: 1, amount: "1.000000" });
    expect(await checkRollups(t.ctx.db)).toEqual([]);
  });
});
