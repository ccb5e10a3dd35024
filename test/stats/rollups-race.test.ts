/**
 * Two racers create orders and move a shared set of orders through every kind of transition at
 * once; afterwards every rollup counter equals a full recount. On PostgreSQL (TEST_DATABASE_URL)
 * the racers are two real processes; on PGlite (one process only) two concurrent racers in this
 * process. Then `stablegate check-rollups`, the real command, agrees: exit 0 and "0" differences,
 * and exit 1 naming the counter once one is tampered with.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/connection.js";
import { migrate } from "../../src/db/migrate.js";
import { queryRows } from "../../src/db/query-rows.js";
import { createOrder } from "../../src/payments/create-order.js";
import { fillAddressPool } from "../../src/wallet/fill-address-pool.js";
import { checkRollups } from "../../src/stats/check-rollups.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_MNEMONIC, TEST_SECRETS } from "../helpers/config.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";
import { race, type RaceTally } from "./race-steps.js";

const ROOT = resolve(import.meta.dirname, "../..");
const RACER = fileURLToPath(new URL("./race-process.ts", import.meta.url));
const ORDERS = 40;
const STEPS = 150;

let t: TestApp;
let shop: TestMerchant;
let orderIds: string[];
let strayAddresses: string[];
beforeAll(async () => {
  t = await createTestApp();
  shop = await addMerchant(t.ctx);
  orderIds = [];
  for (let i = 0; i < ORDERS; i++) {
    const { order } = await createOrder(t.ctx, shop, {
      externalId: `shared-${i}`,
      amount: "10",
      currency: "USDT",
      callbackUrl: "https://shop.example.com/cb",
    });
    orderIds.push(order.id);
  }
  // Addresses no order holds, already out of the pool as a stray takes them (allocated, no order).
  await fillAddressPool(t.ctx);
  const held = await queryRows<{ address: string }>(
    t.ctx.db,
    sql`UPDATE addresses SET status = 'allocated'
        WHERE id IN (SELECT id FROM addresses WHERE status = 'free' ORDER BY derivation_index DESC LIMIT 4)
        RETURNING address`,
  );
  strayAddresses = held.map((r) => r.address);
  expect(strayAddresses).toHaveLength(4);
});
afterAll(() => t.close());

interface Timed extends RaceTally {
  startedAt: number;
  finishedAt: number;
}

function runProcess(url: string, input: Record<string, unknown>): Promise<Timed> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", RACER], {
      env: { ...process.env, DATABASE_URL: url, RACE: JSON.stringify(input) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("exit", (code) => {
      if (code !== 0) fail(new Error(`racer exited ${code}: ${stderr}`));
      else
        done({ ...(JSON.parse(stdout.trim().split("\n").pop() as string) as Timed), finishedAt: Date.now() });
    });
  });
}

/** Runs the real CLI; DATABASE_URL or a PGlite DATA_DIR. */
function checkRollupsCommand(env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["bin/stablegate.mjs", "check-rollups"],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? tmpdir(),
          NODE_ENV: "test",
          ...TEST_SECRETS,
          WALLET_MNEMONIC: TEST_MNEMONIC,
          TRON_NETWORK: "devnet",
          TRON_NODE_URL: "http://127.0.0.1:1",
          USDT_CONTRACT: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
          LOG_LEVEL: "silent",
          ...env,
        },
        timeout: 120_000,
      },
      (error, stdout) => {
        done({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout });
      },
    );
  });
}

describe("rollups under racing writers", () => {
  it(
    "equal a full recount after two racers hit the same orders and counters",
    { timeout: 300_000 },
    async () => {
      const inputs = [1, 2].map((n) => ({
        merchantId: shop.id,
        orderIds,
        steps: STEPS,
        seed: n * 7919,
        name: `racer-${n}`,
        strayAddresses,
      }));
      let tallies: RaceTally[];
      const url = t.testDb.url;
      if (url) {
        const startAt = Date.now() + 4000;
        const timed = await Promise.all(inputs.map((input) => runProcess(url, { ...input, startAt })));
        // Both processes were at work at the same time.
        const [a, b] = timed as [Timed, Timed];
        expect(Math.min(a.finishedAt, b.finishedAt)).toBeGreaterThan(startAt);
        tallies = timed;
      } else {
        tallies = await Promise.all(inputs.map((input) => race(t.ctx, input)));
      }
      expect(tallies.map((tally) => tally.steps)).toEqual([STEPS, STEPS]);
      const created = tallies.reduce((sum, tally) => sum + tally.created, 0);
      expect(created).toBe(2 * (STEPS / 5));
      expect(await checkRollups(t.ctx.db)).toEqual([]);
      // The strays raced too: recorded by both, and both confirmed and dismissed some.
      const strays = await queryRows<{ status: string; resolution: string | null; n: string }>(
        t.ctx.db,
        sql`SELECT status, resolution, count(*)::text AS n FROM stray_transfers GROUP BY 1, 2`,
      );
      expect(strays.reduce((sum, r) => sum + Number(r.n), 0)).toBe(
        tallies.reduce((sum, tally) => sum + tally.strays, 0),
      );
      expect(tallies.every((tally) => tally.strays > 0)).toBe(true);
      expect(strays.some((r) => r.resolution === "dismissed")).toBe(true);
      expect(strays.some((r) => r.status === "confirmed")).toBe(true);
      const [row] = await queryRows<{ orders: string; rolled: string; moved: string }>(
        t.ctx.db,
        sql`SELECT (SELECT count(*) FROM orders WHERE merchant_id = ${shop.id}::uuid)::text AS orders,
          (SELECT sum(order_count) FROM order_rollups_total WHERE merchant_id = ${shop.id}::uuid)::text AS rolled,
          (SELECT count(*) FROM orders WHERE id = ANY(${`{${orderIds.join(",")}}`}::uuid[])
             AND status <> 'pending')::text AS moved`,
      );
      expect(row).toMatchObject({ orders: String(ORDERS + created), rolled: String(ORDERS + created) });
      // The shared orders did move: the race was not all no-ops.
      expect(Number(row?.moved)).toBeGreaterThan(ORDERS / 2);
    },
  );

  it(
    "stablegate check-rollups exits 0 on exact rollups and 1, naming the counter, on a difference",
    { timeout: 300_000 },
    async () => {
      let env: Record<string, string>;
      let tamper: (statement: string) => Promise<void>;
      if (t.testDb.url) {
        env = { DATABASE_URL: t.testDb.url, DATA_DIR: mkdtempSync(join(tmpdir(), "sg-check-")) };
        tamper = async (statement) => {
          await t.ctx.db.execute(sql.raw(statement));
        };
      } else {
        // PGlite is one process: the command opens a PGlite data directory this test prepared.
        const dataDir = mkdtempSync(join(tmpdir(), "sg-check-"));
        env = { DATA_DIR: dataDir };
        const prepare = async (statement?: string) => {
          const database = await openDatabase({ dataDir: join(dataDir, "pglite") });
          try {
            await migrate(database);
            if (statement) await database.session((s) => s.exec(statement));
          } finally {
            await database.close();
          }
        };
        await prepare(`INSERT INTO merchants (id, name, api_key_hash, api_key_prefix, webhook_secret, created_at, updated_at)
        VALUES ('${shop.id}', 'Shop', 'h', 'sg_test_x', 'whsec-test', now(), now());
        INSERT INTO orders (id, merchant_id, external_id, amount_expected, network, status, address, callback_url,
          expires_at, created_at, updated_at)
        VALUES (gen_random_uuid(), '${shop.id}', 'cli-1', 1000000, 'devnet', 'pending', 'TAddr', 'https://x.example/cb',
          now(), now(), now())`);
        tamper = (statement) => prepare(statement);
      }
      const clean = await checkRollupsCommand(env);
      expect(clean).toEqual({ code: 0, stdout: "rollup differences: 0\n" });
      await tamper(
        `UPDATE order_rollups_total SET order_count = order_count + 2 WHERE merchant_id = '${shop.id}' AND status = 'pending'`,
      );
      const dirty = await checkRollupsCommand(env);
      expect(dirty.code).toBe(1);
      expect(dirty.stdout).toMatch(
        new RegExp(
          `order_rollups_total merchant_id=${shop.id} status=pending chain=tron currency=USDT: stored (\\d+) / 0 / 0, recounted (\\d+) / 0 / 0\\n`,
        ),
      );
      expect(dirty.stdout).toMatch(/rollup differences: 1\n$/);
      await tamper(
        `UPDATE order_rollups_total SET order_count = order_count - 2 WHERE merchant_id = '${shop.id}' AND status = 'pending'`,
      );
    },
  );
});
