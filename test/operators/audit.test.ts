import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendAudit } from "../../src/audit/append-audit.js";
import { runVerifyAudit } from "../../src/audit/run-verify-audit.js";
import { verifyAudit } from "../../src/audit/verify-audit.js";
import { openDatabase } from "../../src/db/connection.js";
import { migrate } from "../../src/db/migrate.js";
import { auditLog } from "../../src/db/schema.js";
import { adminCookie, createMerchantViaApi, uniqueIp } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { testConfig } from "../helpers/config.js";
import { createTestDatabase } from "../helpers/db.js";
import { createOperatorViaApi, operatorCookie } from "../helpers/operators.js";

let t: TestApp;
let owner: string;
beforeAll(async () => {
  t = await createTestApp();
  owner = await adminCookie(t.app);
});
afterAll(async () => {
  await t.close();
});

async function auditRows(query = "", cookie = owner) {
  const reply = await t.app.inject({
    method: "GET",
    url: `/api/v1/admin/audit${query}`,
    headers: { cookie },
  });
  expect(reply.statusCode, reply.body).toBe(200);
  return reply.json<{
    data: {
      seq: number;
      action: string;
      actor: { kind: string; id: string | null; label: string };
      target_id: string | null;
      before: Record<string, unknown> | null;
      after: Record<string, unknown> | null;
      ip: string | null;
    }[];
    pagination: { total: number };
  }>();
}

describe("the audit log", () => {
  it("records logins, successful and failed, with the client address", async () => {
    const ip = uniqueIp();
    await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/auth/login",
      payload: { password: "not the password" },
      remoteAddress: ip,
      headers: { "user-agent": "audit-test/1" },
    });
    const failed = (await auditRows("?action=auth.login_failed")).data.find((row) => row.ip === ip);
    expect(failed?.actor).toMatchObject({ kind: "operator", label: "owner" });
    expect(failed?.after).toEqual({ account: "owner", reason: "invalid_password" });
    expect(JSON.stringify(failed)).not.toContain("not the password");
    const unknown = await t.app.inject({
      method: "POST",
      url: "/api/v1/admin/auth/login",
      payload: { email: "nobody@audit.example", password: "guess guess guess" },
      remoteAddress: ip,
    });
    expect(unknown.statusCode).toBe(401);
    const rows = (await auditRows("?action=auth.")).data;
    expect(
      rows.some((row) => row.actor.kind === "system" && row.actor.label.includes("nobody@audit.example")),
    ).toBe(true);
    expect((await auditRows("?action=auth.login")).data.length).toBeGreaterThan(0);
  });

  it("records a merchant change with the operator as actor and secrets redacted", async () => {
    await createOperatorViaApi(t.app, owner, { email: "actor@audit.example", role: "admin" });
    const cookie = await operatorCookie(t.app, "actor@audit.example");
    const merchant = await createMerchantViaApi(t.app, cookie);
    const update = await t.app.inject({
      method: "PUT",
      url: `/api/v1/admin/merchants/${merchant.id}`,
      headers: { cookie },
      payload: { name: "Renamed", webhook_secret: "whsec-brand-new-secret" },
    });
    expect(update.statusCode).toBe(200);
    const rows = (await auditRows(`?target_type=merchant&target_id=${merchant.id}`)).data;
    expect(rows.map((row) => row.action)).toEqual(["merchant.update", "merchant.create"]);
    const [updated] = rows;
    expect(updated?.actor).toMatchObject({ kind: "operator", label: "actor@audit.example" });
    expect(updated?.before).toEqual({ name: "Test Shop", webhook_secret: "[redacted]" });
    expect(updated?.after).toEqual({ name: "Renamed", webhook_secret: "[redacted]" });
    const all = JSON.stringify(
      (await t.ctx.db.select().from(auditLog)).map((row) => [row.before, row.after]),
    );
    expect(all).not.toContain("whsec-brand-new-secret");
    expect(all).not.toContain(merchant.webhook_secret);
    expect(all).not.toContain(merchant.api_key);
    // filters: by actor (email or id) and by time
    const byActor = await auditRows("?actor=actor@audit.example&action=merchant.");
    expect(byActor.data).toHaveLength(2);
    const future = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    expect((await auditRows(`?from=${encodeURIComponent(future)}`)).data).toHaveLength(0);
    const page = await auditRows("?limit=1&page=2");
    expect(page.data).toHaveLength(1);
    expect(page.pagination.total).toBeGreaterThan(2);
  });

  it("answers 400 INVALID_QUERY for a bad filter", async () => {
    const reply = await t.app.inject({
      method: "GET",
      url: "/api/v1/admin/audit?limit=1000",
      headers: { cookie: owner },
    });
    expect(reply.statusCode).toBe(400);
    expect(reply.json().code).toBe("INVALID_QUERY");
  });

  it("refuses UPDATE, DELETE and TRUNCATE of audit rows in the database itself", async () => {
    await expect(t.ctx.db.execute(sql`UPDATE audit_log SET action = 'x'`)).rejects.toThrow();
    await expect(t.ctx.db.execute(sql`DELETE FROM audit_log`)).rejects.toThrow();
    await expect(t.ctx.db.execute(sql`TRUNCATE audit_log`)).rejects.toThrow();
    expect((await verifyAudit(t.ctx.db)).broken).toBeNull();
  });

  it("keeps the chain linear under concurrent appends", async () => {
    const before = (await verifyAudit(t.ctx.db)).rows;
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.ctx.db.transaction(async (tx) => {
          await appendAudit(tx, {
            actor: { kind: "system", label: "test" },
            action: "test.concurrent",
            targetId: String(i),
          });
        }),
      ),
    );
    const result = await verifyAudit(t.ctx.db);
    expect(result.broken).toBeNull();
    expect(result.rows).toBe(before + 40);
  });

  it("takes a rolled-back change's audit row back with it", async () => {
    const before = (await verifyAudit(t.ctx.db)).rows;
    await expect(
      t.ctx.db.transaction(async (tx) => {
        await appendAudit(tx, { actor: { kind: "system", label: "test" }, action: "test.rollback" });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    const after = await verifyAudit(t.ctx.db);
    expect(after).toMatchObject({ rows: before, broken: null });
  });
});

describe("stablegate verify-audit", () => {
  it("passes on an intact log and names the first row edited by hand in SQL", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sg-verify-audit-"));
    try {
      const database = await openDatabase({ dataDir: join(dir, "pglite") });
      await migrate(database);
      for (let i = 1; i <= 5; i++) {
        await appendAudit(database.db, {
          actor: { kind: "system", label: "cli test" },
          action: "test.row",
          after: { i },
        });
      }
      await database.close();
      const config = testConfig({ DATA_DIR: dir });
      const lines: string[] = [];
      expect(await runVerifyAudit(config, [], (line) => lines.push(line))).toBe(0);
      expect(lines.join("\n")).toMatch(/audit chain intact: 5 rows/);

      const again = await openDatabase({ dataDir: join(dir, "pglite") });
      // What an intruder with the database's owner rights could do: switch the guard off and edit.
      await again.db.execute(sql`ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only`);
      await again.db.execute(sql`UPDATE audit_log SET after = '{"i": 99}'::jsonb WHERE seq = 3`);
      await again.close();
      lines.length = 0;
      expect(await runVerifyAudit(config, [], (line) => lines.push(line))).toBe(1);
      expect(lines[0]).toMatch(/^audit chain broken at row seq 3 \(id [0-9a-f-]{36}\): hash does not match/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // three PGlite opens of an on-disk directory (migrations included): slow on a busy machine
  }, 180_000);
});

describe("every test database's audit chain is verified when it is dropped", () => {
  it("fails the file naming the row when a test database's chain was edited", async () => {
    const testDb = await createTestDatabase({ poolSize: 2 });
    for (let i = 1; i <= 3; i++) {
      await appendAudit(testDb.database.db, {
        actor: { kind: "system", label: "drop check" },
        action: "test.row",
        after: { i },
      });
    }
    await testDb.database.db.execute(sql`ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only`);
    await testDb.database.db.execute(sql`UPDATE audit_log SET reason = 'forged' WHERE seq = 2`);
    await expect(testDb.drop()).rejects.toThrow(/audit chain of test database .* broken at row seq 2 /);
  });
});
