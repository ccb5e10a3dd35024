/**
 * The service's layers (ARCHITECTURE.md, "Rules the layout enforces") are a lint rule, and it can
 * fail: each forbidden import below, linted through ESLint's API as if it were a file of that layer,
 * is an error of `stablegate/layers`, while the allowed ones pass. Domain code never imports
 * src/http; src/http imports no database driver, none of our database modules but the error
 * classifier, and touches no database handle.
 */
import { describe, expect, it } from "vitest";
import { ruleErrors, ruleHits } from "./lint-probe.js";

const RULE = "stablegate/layers";
const layerErrors = (path: string, code: string) => ruleErrors(RULE, path, code);

const domainImportsHttp: Array<[string, string, string]> = [
  ["src/payments/probe.ts", 'import { buildApp } from "../http/app.js";', "../http/app.js"],
  ["src/payments/probe.ts", 'import type { App } from "../http/app.js";', "../http/app.js"],
  [
    "src/orders/probe.ts",
    'export { requireMerchant } from "../http/plugins/merchant-auth.js";',
    "../http/plugins/merchant-auth.js",
  ],
  ["src/workers/probe.ts", 'export * from "../http/rate-limiter.js";', "../http/rate-limiter.js"],
  ["src/context-probe.ts", 'export const load = () => import("./http/errors.js");', "./http/errors.js"],
  [
    "src/db/probe.ts",
    'export type Schema = typeof import("../http/schemas/payments.js");',
    "../http/schemas/payments.js",
  ],
];

const httpImportsDatabase: Array<[string, string, string]> = [
  ["src/http/routes/probe.ts", 'import { sql } from "drizzle-orm";', "drizzle-orm"],
  ["src/http/routes/admin/probe.ts", 'import { pgTable } from "drizzle-orm/pg-core";', "drizzle-orm/pg-core"],
  ["src/http/probe.ts", 'import pg from "pg";', "pg"],
  ["src/http/probe.ts", 'import Pool from "pg-pool";', "pg-pool"],
  ["src/http/plugins/probe.ts", 'import { PGlite } from "@electric-sql/pglite";', "@electric-sql/pglite"],
  [
    "src/http/probe.ts",
    'export const load = () => import("@electric-sql/pglite/contrib/pgcrypto");',
    "@electric-sql/pglite/contrib/pgcrypto",
  ],
  [
    "src/http/routes/merchant/probe.ts",
    'import type { Executor } from "../../../db/connection.js";',
    "../../../db/connection.js",
  ],
  ["src/http/schemas/probe.ts", 'import { orders } from "../../db/schema.js";', "../../db/schema.js"],
  ["src/http/probe.ts", 'import { queryRows } from "../db/query-rows.js";', "../db/query-rows.js"],
  ["src/http/probe.ts", 'export { LOCK_KEYS } from "../db/locks.js";', "../db/locks.js"],
];

const httpTouchesHandle: Array<[string, string, string]> = [
  [
    "src/http/routes/probe.ts",
    "export const rows = (request: { ctx: { db: { execute(q: string): unknown } } }) =>\n  request.ctx.db.execute('SELECT 1');",
    "'db'",
  ],
  ["src/http/probe.ts", "export const pool = (ctx: { database: unknown }) => ctx.database;", "'database'"],
  [
    "src/http/probe.ts",
    "export function f(ctx: { db: unknown }) {\n  const { db } = ctx;\n  return db;\n}",
    "'db'",
  ],
];

describe("stablegate/layers", () => {
  it.each(domainImportsHttp)("refuses domain code in %s: %s", async (path, code, specifier) => {
    const errors = await layerErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`domain code may not import '${specifier}'`);
  });

  it.each(httpImportsDatabase)("refuses the HTTP layer in %s: %s", async (path, code, specifier) => {
    const errors = await layerErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`src/http may not import '${specifier}'`);
  });

  it.each(httpTouchesHandle)("refuses the HTTP layer's database handle in %s", async (path, code, name) => {
    const errors = await layerErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`database handle ${name}`);
  });

  it("allows each layer what lies below it, and the process and the CLI everything", async () => {
    const allowed: Array<[string, string]> = [
      [
        "src/http/routes/probe.ts",
        [
          'import { z } from "zod";',
          'import { isDatabaseUnavailable } from "../../db/database-error.js";',
          'import { ORDER_STATUSES } from "../../orders/order-statuses.js";',
          'import { createOrder } from "../../payments/create-order.js";',
          "export const call = (request: { ctx: object }) => createOrder(request.ctx as never, {} as never, {} as never);",
        ].join("\n"),
      ],
      [
        "src/payments/probe.ts",
        'import { sql } from "drizzle-orm";\nimport type { Db } from "../db/connection.js";\nimport { AppError } from "../errors.js";',
      ],
      [
        "src/server.ts",
        'import { buildApp } from "./http/app.js";\nimport { openDatabase } from "./db/connection.js";',
      ],
      ["src/main.ts", 'import { buildApp } from "./http/app.js";'],
      [
        "test/probe.test.ts",
        'import { buildApp } from "../src/http/app.js";\nimport { openDatabase } from "../src/db/connection.js";',
      ],
      // A module whose name merely starts like a refused folder's is not in it.
      ["src/webhooks/probe.ts", 'import { get } from "../http-client.js";\nimport { x } from "../dbx/x.js";'],
      ["src/http/probe.ts", 'import { x } from "../dbx/x.js";\nimport { pgp } from "pgp";'],
    ];
    for (const [path, code] of allowed) expect(await layerErrors(path, code), path).toEqual([]);
  });

  it("the service's own code passes it", async () => {
    expect(await ruleHits(RULE, ["src/**/*.ts"], 200)).toEqual([]);
  }, 180_000);
});
