/**
 * Migration 0026: a chain alert still firing under its pre-chain key (`scanner_lag`, `node_down`)
 * is resolved, the per-chain ones are left as they are, and the old app_state rows go.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/connection.js";
import { loadMigrations, migrate } from "../../src/db/migrate.js";

describe("migration 0026 (chain alert keys)", () => {
  it("resolves alerts firing under the old keys and drops the old state rows, leaving per-chain ones", async () => {
    const database = await openDatabase({});
    try {
      await migrate(
        database,
        loadMigrations().filter((m) => m.name < "0026"),
      );
      await database.session(async (s) => {
        for (const key of ["scanner_lag", "node_down", "scanner_lag:tron", "pool_low"]) {
          await s.query(
            `INSERT INTO alerts (id, alert, key, kind, severity, state, text, fired_at)
             VALUES ($1, $2, $3, 'condition', 'critical', 'firing', 'text', now())`,
            [randomUUID(), key.split(":")[0], key],
          );
        }
        for (const key of ["chain_status", "alerts_node_answered_at", "chain_status:tron"]) {
          await s.query(`INSERT INTO app_state (key, value, updated_at) VALUES ($1, '{}'::jsonb, now())`, [
            key,
          ]);
        }
      });
      // Up to 0033, which resolves the family-less pool_low (test/db/chain-currency-rollups.test.ts).
      expect(
        await migrate(
          database,
          loadMigrations().filter((m) => m.name < "0033"),
        ),
      ).toContain("0026_chain_alert_keys");
      const { rows } = await database.session((s) =>
        s.query<{ key: string; state: string }>("SELECT key, state FROM alerts ORDER BY key"),
      );
      expect(rows).toEqual([
        { key: "node_down", state: "resolved" },
        { key: "pool_low", state: "firing" },
        { key: "scanner_lag", state: "resolved" },
        { key: "scanner_lag:tron", state: "firing" },
      ]);
      const state = await database.session((s) =>
        s.query<{ key: string }>(
          "SELECT key FROM app_state WHERE key LIKE 'chain_status%' OR key LIKE 'alerts_node%'",
        ),
      );
      expect(state.rows.map((r) => r.key)).toEqual(["chain_status:tron"]);
    } finally {
      await database.close();
    }
  });
});
