/**
 * Migration 0033: the daily and total order rollups gain the order's chain and currency. Rows
 * counted before it (all under one merchant x status key) are recounted per chain and currency, so
 * an order already on another chain or in another currency lands on its own row, and check-rollups
 * finds nothing to report; the triggers keep the new keys from then on.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/connection.js";
import { loadMigrations, migrate } from "../../src/db/migrate.js";
import { checkRollups } from "../../src/stats/check-rollups.js";

describe("migration 0033 (rollups per chain and currency)", () => {
  it("recounts the existing rollups per chain and currency, and the triggers keep them", async () => {
    const database = await openDatabase({});
    try {
      await migrate(
        database,
        loadMigrations().filter((m) => m.name < "0033"),
      );
      const merchant = randomUUID();
      const order = (chain: string, currency: string, expected: number, received: number, status: string) =>
        database.session((s) =>
          s.query(
            `INSERT INTO orders (id, merchant_id, external_id, amount_expected, amount_received, network, status,
               address, callback_url, expires_at, created_at, updated_at, chain, currency)
             VALUES ($1::uuid, $2, $1::text, $3, $4, 'devnet', $5, $1::text, 'https://shop.example/cb',
               '2026-01-02T00:00:00Z', '2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z', $6, $7)`,
            [randomUUID(), merchant, expected, received, status, chain, currency],
          ),
        );
      await database.session((s) =>
        s.query(
          `INSERT INTO merchants (id, name, api_key_hash, api_key_prefix, webhook_secret, created_at, updated_at)
           VALUES ($1, 'Shop', 'h', 'p', 'secret-of-the-shop', now(), now())`,
          [merchant],
        ),
      );
      // A pool_low firing under the family-less key of before 0033.
      await database.session((s) =>
        s.query(
          `INSERT INTO alerts (id, alert, key, kind, severity, state, text, fired_at)
           VALUES ($1, 'pool_low', 'pool_low', 'condition', 'warning', 'firing', 'low', now())`,
          [randomUUID()],
        ),
      );
      await order("tron", "USDT", 5_000_000, 5_000_000, "confirmed");
      await order("ethereum", "USDC", 7_000_000, 7_000_000, "confirmed");
      await order("ethereum", "USDT", 3_000_000, 2_000_000, "underpaid");
      const before = await database.session((s) =>
        s.query<{ status: string; n: string; amount: string }>(
          "SELECT status, order_count::text AS n, amount_received::text AS amount FROM order_rollups_total ORDER BY status",
        ),
      );
      // Before 0033 the three orders share merchant x status keys: 12 across two currencies in one row.
      expect(before.rows).toEqual([
        { status: "confirmed", n: "2", amount: "12000000" },
        { status: "underpaid", n: "1", amount: "2000000" },
      ]);

      expect(await migrate(database)).toContain("0033_chain_currency_stats");
      const read = (table: string) =>
        database.session((s) =>
          s.query<Record<string, string>>(
            `SELECT chain, currency, status, order_count::text AS n, amount_received::text AS amount,
               paid_in_full_count::text AS full_n
             FROM ${table} ORDER BY chain, currency, status`,
          ),
        );
      const expected = [
        { chain: "ethereum", currency: "USDC", status: "confirmed", n: "1", amount: "7000000", full_n: "1" },
        { chain: "ethereum", currency: "USDT", status: "underpaid", n: "1", amount: "2000000", full_n: "0" },
        { chain: "tron", currency: "USDT", status: "confirmed", n: "1", amount: "5000000", full_n: "1" },
      ];
      expect((await read("order_rollups_total")).rows).toEqual(expected);
      expect((await read("order_rollups_daily")).rows).toEqual(expected);
      expect(await checkRollups(database.db)).toEqual([]);
      // pool_low is per family from now on (pool_low:tron, pool_low:evm): the old key is resolved.
      const alerts = await database.session((s) =>
        s.query<{ key: string; state: string }>("SELECT key, state FROM alerts"),
      );
      expect(alerts.rows).toEqual([{ key: "pool_low", state: "resolved" }]);

      // The triggers: a new order and a status change move the right (chain, currency) rows only.
      await order("bsc", "USDT", 1_000_000, 0, "pending");
      await database.session((s) =>
        s.query(
          `UPDATE orders SET status = 'confirmed', amount_received = 3000000
           WHERE chain = 'ethereum' AND currency = 'USDT'`,
        ),
      );
      expect((await read("order_rollups_total")).rows.filter((r) => r.n !== "0")).toEqual([
        { chain: "bsc", currency: "USDT", status: "pending", n: "1", amount: "0", full_n: "0" },
        expected[0],
        { chain: "ethereum", currency: "USDT", status: "confirmed", n: "1", amount: "3000000", full_n: "1" },
        expected[2],
      ]);
      expect(await checkRollups(database.db)).toEqual([]);
      // A counter moved to the wrong chain is reported under its chain and currency.
      await database.session((s) =>
        s.query(`UPDATE order_rollups_total SET chain = 'polygon' WHERE chain = 'bsc'`),
      );
      expect(
        (await checkRollups(database.db)).map((d) => [d.table, d.key.chain, d.stored[0], d.actual[0]]),
      ).toEqual([
        ["order_rollups_total", "bsc", "0", "1"],
        ["order_rollups_total", "polygon", "1", "0"],
      ]);
    } finally {
      await database.close();
    }
  });
});
