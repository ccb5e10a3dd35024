/**
 * Operator sign-in and the per-request session check, through the real app (app.inject):
 *
 * 1. Login of a named operator with argon2id and a TOTP code: N logins, each a fresh code of a new
 *    30-second step (the clock is advanced, since a code works once), from its own client address.
 *    Goal: p99 < 300 ms.
 * 2. An admin read (GET /api/v1/admin/stats) WITH the session check (the app as shipped: the JWT,
 *    then the session row and its operator by primary key) beside the same read WITHOUT it (the same
 *    handler behind a JWT-only check, as without session rows), interleaved in one run on one database.
 *    Goal: the check adds <= 1 ms p50. Also the check alone: authenticateSession vs verifyAdminToken.
 *
 *   npx tsx bench/operator-auth.ts [--logins 200] [--reads 2000]
 *
 * PGlite in memory by default; BENCH_DATABASE_URL=postgres://... uses that database (it must be
 * empty or migrated; the bench adds one operator).
 */
import { parseArgs } from "node:util";
import fastifyCookie from "@fastify/cookie";
import Fastify from "fastify";
import { generateSync } from "otplib";
import { verifyAdminToken } from "../src/admin/admin-token.js";
import { authenticateSession } from "../src/admin/sessions.js";
import { getStats } from "../src/stats/get-stats.js";
import { fmt, percentile, report, startAdminApp } from "./admin-app.js";

const { values } = parseArgs({
  options: { logins: { type: "string", default: "200" }, reads: { type: "string", default: "2000" } },
});
const LOGINS = Number(values.logins);
const READS = Number(values.reads);

const { config, ctx, app, clock, nextIp, close } = await startAdminApp("sg-bench-operators-");
const cookieOf = (header: unknown) =>
  String(Array.isArray(header) ? header[0] : header).split(";")[0] as string;

// The owner creates an operator, who enrols TOTP through the API.
const owner = cookieOf(
  (
    await app.inject({
      method: "POST",
      url: "/api/v1/admin/auth/login",
      payload: { password: config.adminPassword },
      remoteAddress: nextIp(),
    })
  ).headers["set-cookie"],
);
const email = `bench-${Date.now()}@operators.example`;
const password = "bench operator password 42";
const created = await app.inject({
  method: "POST",
  url: "/api/v1/admin/operators",
  headers: { cookie: owner },
  payload: { email, name: "Bench", role: "admin", password },
});
if (created.statusCode !== 201) throw new Error(`create operator: ${created.statusCode} ${created.body}`);
const first = cookieOf(
  (
    await app.inject({
      method: "POST",
      url: "/api/v1/admin/auth/login",
      payload: { email, password },
      remoteAddress: nextIp(),
    })
  ).headers["set-cookie"],
);
const setup = await app.inject({
  method: "POST",
  url: "/api/v1/admin/me/totp/setup",
  headers: { cookie: first },
  payload: { current_password: password },
});
const { secret } = setup.json<{ secret: string }>();
const code = () => generateSync({ secret, epoch: Math.floor(clock.now().getTime() / 1000) });
await app.inject({
  method: "POST",
  url: "/api/v1/admin/me/totp/confirm",
  headers: { cookie: first },
  payload: { totp_code: code() },
});

// 1. Login with argon2id + TOTP.
const logins: number[] = [];
let cookie = first;
for (let i = 0; i < LOGINS + 5; i++) {
  clock.advance(30_000);
  const started = performance.now();
  const reply = await app.inject({
    method: "POST",
    url: "/api/v1/admin/auth/login",
    payload: { email, password, totp_code: code() },
    remoteAddress: nextIp(),
  });
  const elapsed = performance.now() - started;
  if (reply.statusCode !== 200) throw new Error(`login ${i}: ${reply.statusCode} ${reply.body}`);
  cookie = cookieOf(reply.headers["set-cookie"]);
  if (i >= 5) logins.push(elapsed); // the first few warm up the JIT and argon2's memory
}

// 2. Admin reads with and without the session check, interleaved.
const bare = Fastify();
await bare.register(fastifyCookie);
bare.addHook("onRequest", async (request) => {
  const token = request.cookies.admin_token;
  if (!token) throw new Error("no cookie");
  await verifyAdminToken(ctx, token); // the JWT only: what a session-less check costs
});
bare.get("/api/v1/admin/stats", async () => getStats(ctx));
await bare.ready();

const withCheck: number[] = [];
const withoutCheck: number[] = [];
const sessionOnly: number[] = [];
const jwtOnly: number[] = [];
const token = cookie.slice("admin_token=".length);
for (let i = 0; i < READS + 50; i++) {
  const order = i % 2 === 0 ? (["with", "without"] as const) : (["without", "with"] as const);
  for (const which of order) {
    const target = which === "with" ? app : bare;
    const started = performance.now();
    const reply = await target.inject({ method: "GET", url: "/api/v1/admin/stats", headers: { cookie } });
    const elapsed = performance.now() - started;
    if (reply.statusCode !== 200) throw new Error(`read (${which}): ${reply.statusCode} ${reply.body}`);
    if (i >= 50) (which === "with" ? withCheck : withoutCheck).push(elapsed);
  }
  let started = performance.now();
  await authenticateSession(ctx, token);
  const a = performance.now() - started;
  started = performance.now();
  await verifyAdminToken(ctx, token);
  const b = performance.now() - started;
  if (i >= 50) {
    sessionOnly.push(a);
    jwtOnly.push(b);
  }
}

console.log("");
report("login (email + argon2id password + TOTP code)", logins);
console.log(`  goal p99 < 300 ms: ${percentile(logins, 99) < 300 ? "met" : "NOT met"}`);
console.log("");
report("GET /admin/stats WITH the session check", withCheck);
report("GET /admin/stats WITHOUT it (JWT only)", withoutCheck);
const added = percentile(withCheck, 50) - percentile(withoutCheck, 50);
console.log(`  p50 difference: ${fmt(added)} (goal <= 1 ms: ${added <= 1 ? "met" : "NOT met"})`);
report("  the check alone: JWT + session row", sessionOnly);
report("  JWT verification alone", jwtOnly);

await bare.close();
await close();
