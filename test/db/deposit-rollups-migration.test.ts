/**
 * Migration 0038: the deposit rollups gain the deposit's chain and currency, and deposits gain the
 * sub-micro remainder of an 18-decimal token. Rows counted before it (all under one merchant x
 * status key, USDT and USDC in one sum) are recounted per chain and currency, check-rollups finds
 * nothing to report, and the triggers keep the new keys from then on. Deposits written before it
 * read as having no remainder in a 6-decimal token.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/connection.js";
import { loadMigrations, migrate } from "../../src/db/migrate.js";
import { checkRollups } from "../../src/stats/check-rollups.js";

describe("migration 0038 (deposit rollups per chain and currency, deposit remainders)", () => {
  it("recounts the existing deposit rollups per chain and currency, and the triggers keep them", async () => {
    const database = await openDatabase({});
    try {
      await migrate(
        database,
        loadMigrations().filter((m) => m.name < "0038"),
      );
      const merchant = randomUUID();
      const addressId = randomUUID();
      await database.session(async (s) => {
        await s.query(
          `INSERT INTO merchants (id, name, api_key_hash, api_key_prefix, webhook_secret, created_at, updated_at)
           VALUES ($1, 'Shop', 'h', 'p', 'secret-of-the-shop', now(), now())`,
          [merchant],
        );
        await s.query(
          `INSERT INTO addresses (family, static_index, address, status, created_at)
           VALUES ('evm', 0, '0x00000000000000000000000000000000000000a1', 'static', now())`,
        );
        await s.query(
          `INSERT INTO deposit_addresses (id, merchant_id, customer_ref, address_id, address, callback_url,
             created_at, updated_at, family, chain, currency)
           SELECT $1, $2, 'c-1', id, address, 'https://shop.example/cb', now(), now(), 'evm', 'ethereum', 'USDT'
           FROM addresses`,
          [addressId, merchant],
        );
      });
      let log = 0;
      const deposit = (chain: string, currency: string, amount: number, status: string) =>
        database.session((s) =>
          s.query(
            `INSERT INTO deposits (id, deposit_address_id, merchant_id, tx_hash, log_index, block_number, block_hash,
               block_timestamp, from_address, to_address, amount, chain, currency, status, below_minimum,
               address_status, detected_at, created_at, updated_at)
             VALUES ($1::uuid, $2, $3, '0xt' || $1::text, $4, 1, '0xb', '2026-01-01T10:00:00Z', '0xf',
               '0x00000000000000000000000000000000000000a1', $5, $6, $7, $8, false, 'active',
               '2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z')`,
            [randomUUID(), addressId, merchant, log++, amount, chain, currency, status],
          ),
        );
      await deposit("ethereum", "USDT", 5_000_000, "confirmed");
      await deposit("ethereum", "USDC", 7_000_000, "confirmed");
      await deposit("bsc", "USDT", 2_000_000, "confirmed");
      await deposit("ethereum", "USDC", 1_000_000, "detected");
      const before = await database.session((s) =>
        s.query<{ status: string; n: string; amount: string }>(
          "SELECT status, deposit_count::text AS n, amount::text AS amount FROM deposit_rollups_total ORDER BY status",
        ),
      );
      // Before 0038 the confirmed deposits share one key: 14 across two chains and two currencies.
      expect(before.rows).toEqual([
        { status: "confirmed", n: "3", amount: "14000000" },
        { status: "detected", n: "1", amount: "1000000" },
      ]);

      expect(await migrate(database)).toContain("0038_deposit_remainders_and_rollups");
      const read = (table: string) =>
        database.session((s) =>
          s.query<Record<string, string>>(
            `SELECT chain, currency, status, deposit_count::text AS n, amount::text AS amount
             FROM ${table} ORDER BY chain, currency, status`,
          ),
        );
      const expected = [
        { chain: "bsc", currency: "USDT", status: "confirmed", n: "1", amount: "2000000" },
        { chain: "ethereum", currency: "USDC", status: "confirmed", n: "1", amount: "7000000" },
        { chain: "ethereum", currency: "USDC", status: "detected", n: "1", amount: "1000000" },
        { chain: "ethereum", currency: "USDT", status: "confirmed", n: "1", amount: "5000000" },
      ];
      expect((await read("deposit_rollups_total")).rows).toEqual(expected);
      expect((await read("deposit_rollups_daily")).rows).toEqual(expected);
      expect(await checkRollups(database.db)).toEqual([]);
      // Deposits of before: no remainder, 6 decimals.
      const tails = await database.session((s) =>
        s.query<{ remainder: string; token_decimals: number }>(
          "SELECT DISTINCT remainder::text AS remainder, token_decimals FROM deposits",
        ),
      );
      expect(tails.rows).toEqual([{ remainder: "0", token_decimals: 6 }]);

      // The triggers: a new deposit and a confirmation move the right (chain, currency) rows only.
      await deposit("bsc", "USDC", 3_000_000, "detected");
      await database.session((s) =>
        s.query(`UPDATE deposits SET status = 'confirmed', confirmed_at = now() WHERE status = 'detected'`),
      );
      expect((await read("deposit_rollups_total")).rows.filter((r) => r.n !== "0")).toEqual([
        { chain: "bsc", currency: "USDC", status: "confirmed", n: "1", amount: "3000000" },
        expected[0],
        { chain: "ethereum", currency: "USDC", status: "confirmed", n: "2", amount: "8000000" },
        expected[3],
      ]);
      expect(await checkRollups(database.db)).toEqual([]);
      // The remainder is never negative.
      await expect(
        database.session((s) => s.query("UPDATE deposits SET remainder = -1 WHERE chain = 'bsc'")),
      ).rejects.toThrow(/deposits_remainder_check/);
    } finally {
      await database.close();
    }
  });
});
