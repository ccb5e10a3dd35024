/**
 * Static addresses derived while order addresses are derived, by two worker processes and an api
 * process at once (real processes on PostgreSQL; on PGlite, which one process alone may open, the
 * same three parties run concurrently in this process): every index of each branch is used once,
 * the addresses are the derivation path's own, and no address goes to two holders.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../src/db/query-rows.js";
import { deriveAddress, ORDER_BRANCH, STATIC_BRANCH } from "@stablegate/tron/hd";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { addMerchant } from "../payments/helpers.js";
import { deriveConcurrently } from "./derive-loop.js";

const SCRIPT = fileURLToPath(new URL("./deriver-process.ts", import.meta.url));
const COUNT = 15;
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ env: { POOL_MIN_FREE: "0" } });
});
afterAll(() => t.close());

function spawnDeriver(
  url: string,
  env: Record<string, string>,
): { child: ChildProcess; ready: Promise<void>; done: Promise<void> } {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: { ...process.env, DATABASE_URL: url, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr?.on("data", (c: Buffer) => (err += c.toString()));
  const seen = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`deriver never said ${word}: ${out} ${err}`)), 120_000);
      child.stdout?.on("data", (c: Buffer) => {
        out += c.toString();
        if (out.includes(word)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once("exit", (code) => {
        if (!out.includes(word)) reject(new Error(`deriver exited ${code} before ${word}: ${err}`));
      });
    });
  return { child, ready: seen("ready"), done: seen("done") };
}

describe("deriving both branches at once", () => {
  it(
    "uses every index of each branch once and gives no address to two holders",
    { timeout: 240_000 },
    async () => {
      const merchant = await addMerchant(t.ctx, "Top-ups");
      const parties = [
        { role: "worker" as const, tag: "worker-a" },
        { role: "worker" as const, tag: "worker-b" },
        { role: "api" as const, tag: "api" },
      ];
      const url = t.testDb.url;
      if (url) {
        const children = parties.map((p) =>
          spawnDeriver(url, { ROLE: p.role, MERCHANT_ID: merchant.id, COUNT: String(COUNT) }),
        );
        try {
          await Promise.all(children.map((c) => c.ready));
          for (const c of children) c.child.stdin?.write("go\n");
          await Promise.all(children.map((c) => c.done));
        } finally {
          for (const c of children) if (c.child.exitCode === null) c.child.kill("SIGKILL");
        }
      } else {
        await Promise.all(
          parties.map((p) => deriveConcurrently(t.ctx, { ...p, merchantId: merchant.id, count: COUNT })),
        );
      }

      const rows = await queryRows<{
        address: string;
        derivation_index: number | null;
        static_index: number | null;
        status: string;
        order_id: string | null;
      }>(
        t.ctx.db,
        sql`SELECT address, derivation_index, static_index, status, order_id::text AS order_id FROM addresses`,
      );
      const statics = rows.filter((r) => r.static_index !== null);
      const orderBranch = rows.filter((r) => r.derivation_index !== null);
      expect(statics.length + orderBranch.length).toBe(rows.length);

      // 3 parties x COUNT own customers + 3 shared ones.
      expect(statics.length).toBe(parties.length * COUNT + 3);
      expect(statics.map((r) => r.static_index).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        Array.from({ length: statics.length }, (_, i) => i),
      );
      const orderIndexes = orderBranch.map((r) => r.derivation_index as number).sort((a, b) => a - b);
      expect(orderIndexes).toEqual(Array.from({ length: orderBranch.length }, (_, i) => i));
      expect(orderBranch.length).toBeGreaterThanOrEqual(COUNT); // the api's orders at least

      const xpub = t.ctx.config.walletXpub;
      for (const r of statics) {
        expect(r.status).toBe("static");
        expect(r.order_id).toBeNull();
        expect(r.address).toBe(deriveAddress(xpub, r.static_index as number, STATIC_BRANCH));
      }
      for (const r of orderBranch)
        expect(r.address).toBe(deriveAddress(xpub, r.derivation_index as number, ORDER_BRANCH));
      expect(new Set(rows.map((r) => r.address)).size).toBe(rows.length);

      // Holders: each static address belongs to exactly one deposit address and to no order.
      const [holders] = await queryRows<{
        static_rows: number;
        deposit_addresses: number;
        shared_with_orders: number;
      }>(
        t.ctx.db,
        sql`SELECT (SELECT count(*) FROM addresses WHERE static_index IS NOT NULL)::int AS static_rows,
                 (SELECT count(DISTINCT address_id) FROM deposit_addresses)::int AS deposit_addresses,
                 (SELECT count(*) FROM deposit_addresses d JOIN orders o ON o.address = d.address)::int
                   AS shared_with_orders`,
      );
      expect(holders).toEqual({
        static_rows: statics.length,
        deposit_addresses: statics.length,
        shared_with_orders: 0,
      });
      const [orderHolders] = await queryRows<{ n: number; distinct_addresses: number }>(
        t.ctx.db,
        sql`SELECT count(*)::int AS n, count(DISTINCT address)::int AS distinct_addresses FROM orders`,
      );
      expect(orderHolders?.n).toBe(COUNT);
      expect(orderHolders?.distinct_addresses).toBe(COUNT);
    },
  );
});
