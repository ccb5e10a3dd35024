/**
 * The fuzz target: a real app on a fresh database (PGlite, or PostgreSQL when TEST_DATABASE_URL is
 * set) with an admin session, merchants and orders to aim at, every route taken from the OpenAPI
 * document the app serves, and the properties every reply must hold:
 *   - never a 5xx;
 *   - every 4xx is exactly { error: string, code: string } with a code of the one code table whose
 *     status is the reply's status;
 *   - a refused request changes nothing in the database;
 *   - the process stays healthy.
 * Used by test/fuzz/*.test.ts (about 2,000 cases per engine) and scripts/fuzz.ts (npm run fuzz).
 */
import { connect, type AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { ensureWebBuild } from "../../scripts/build-web.js";
import { STATUS_BY_CODE } from "../../src/errors.js";
import { adminCookie, createMerchantViaApi } from "../helpers/admin.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { bodyText, pathValue, queryText, type JsonSchema } from "./arbitraries.js";

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export interface FuzzOutcome {
  status: number;
  problem: string | null;
}

interface Route {
  method: string;
  path: string;
  auth: "merchant" | "admin" | "none";
  query: string[];
  querySchemas: Record<string, JsonSchema | undefined>;
  body: JsonSchema | undefined;
}

export interface FuzzTarget {
  t: TestApp;
  /** The fuzzing merchant's API key. */
  apiKey: string;
  routes: Route[];
  request: fc.Arbitrary<FuzzRequest>;
  /** Sends one request; `problem` names the property it broke, null when none. */
  check(request: FuzzRequest): Promise<FuzzOutcome>;
  /** Sends raw bytes over a socket (status 0: the server closed without a reply). */
  checkRaw(bytes: Buffer): Promise<FuzzOutcome>;
  assertHealthy(): Promise<void>;
  close(): Promise<void>;
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];

// Hidden routes (pages, assets, the document itself) and paths no route serves.
const EXTRA_ROUTES: Array<Pick<Route, "method" | "path">> = [
  { method: "GET", path: "/checkout/{id}" },
  { method: "GET", path: "/admin" },
  { method: "GET", path: "/admin/{id}" },
  { method: "GET", path: "/assets/{id}" },
  { method: "GET", path: "/api/v1/openapi.json" },
  { method: "GET", path: "/api/v1/{id}" },
  { method: "POST", path: "/{id}" },
];

/** Rows that a refused request must leave exactly as they were. Login attempts are counted on purpose. */
const SNAPSHOT = sql`SELECT
  (SELECT md5(coalesce(string_agg(m::text, '|' ORDER BY m.id), '')) FROM merchants m) AS merchants,
  (SELECT md5(coalesce(string_agg(o.id::text || o.status || o.updated_at::text, '|' ORDER BY o.id), '')) FROM orders o) AS orders,
  (SELECT count(*)::text FROM order_events) AS events,
  (SELECT md5(coalesce(string_agg(w.id::text || w.status || w.attempts::text || w.next_attempt_at::text, '|' ORDER BY w.id), '')) FROM webhook_deliveries w) AS deliveries,
  (SELECT md5(coalesce(string_agg(s::text, '|' ORDER BY s.id), '')) FROM settlements s) AS settlements,
  (SELECT count(*)::text || '/' || count(*) FILTER (WHERE status = 'free')::text FROM addresses) AS addresses`;

const printable = (value: string) => value.replace(/[^\x20-\x7e]/g, "?");

export async function startFuzzTarget(): Promise<FuzzTarget> {
  // The pages are fuzzed as served: without web/dist, /admin answers 503, and a HEAD 503 has no body
  // to show that it is the documented SERVICE_UNAVAILABLE (a fresh clone failed or passed by file order).
  await ensureWebBuild();
  const t = await createTestApp({
    env: { MERCHANT_RATE_LIMIT_PER_MINUTE: "1000000", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" },
  });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  const port = (t.app.server.address() as AddressInfo).port;
  const cookie = await adminCookie(t.app);
  // The fuzzing merchant's id is never a path target, so no case can rotate or suspend its key.
  const self = await createMerchantViaApi(t.app, cookie);
  const targets = [await createMerchantViaApi(t.app, cookie), await createMerchantViaApi(t.app, cookie)];
  const orderIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const reply = await t.app.inject({
      method: "POST",
      url: "/api/v1/payments",
      headers: { "x-api-key": self.api_key },
      payload: {
        external_id: `fuzz-seed-${i}`,
        amount: "12.5",
        currency: "USDT",
        callback_url: "https://shop.example.com/h",
      },
    });
    orderIds.push((JSON.parse(reply.body) as { id: string }).id);
  }
  const knownIds = [...orderIds, ...targets.map((m) => m.id)];

  const doc = (
    t.app as unknown as { swagger(): { paths: Record<string, Record<string, Record<string, unknown>>> } }
  ).swagger();
  const routes: Route[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = (operation.parameters ?? []) as Array<{
        in: string;
        name: string;
        schema?: JsonSchema;
      }>;
      const query = parameters.filter((p) => p.in === "query");
      const content = (
        operation.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined
      )?.content;
      routes.push({
        method: method.toUpperCase(),
        path,
        auth: path.startsWith("/api/v1/admin")
          ? "admin"
          : path.startsWith("/api/v1/payments") || path.startsWith("/api/v1/merchant")
            ? "merchant"
            : "none",
        query: query.map((p) => p.name),
        querySchemas: Object.fromEntries(query.map((p) => [p.name, p.schema])),
        body: content?.["application/json"]?.schema,
      });
    }
  }
  for (const extra of EXTRA_ROUTES)
    routes.push({ ...extra, auth: "none", query: [], querySchemas: {}, body: undefined });

  const apiKeyArb = fc.oneof(
    { weight: 8, arbitrary: fc.constant(self.api_key) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "",
        "sg_test_",
        `${self.api_key}x`,
        "k".repeat(4000),
        targets[0]?.api_key ?? "",
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map(printable) },
  );
  const cookieArb = fc.oneof(
    { weight: 8, arbitrary: fc.constant(cookie) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "admin_token=",
        "admin_token=garbage",
        "admin_token=eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.",
        `${cookie}; ${cookie}x`,
        `a=${"c".repeat(3000)}`,
        "admin_token=%00",
      ),
    },
  );
  const contentTypeArb = fc.oneof(
    { weight: 8, arbitrary: fc.constant("application/json") },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json; charset=latin1",
        "application/json, text/html",
        "",
      ),
    },
  );
  const idArb = pathValue(knownIds);

  // Routes that take a body reach the database with what they are given: they get more cases.
  const routeArb = fc.oneof(
    ...routes.map((route) => ({ weight: route.body ? 4 : 1, arbitrary: fc.constant(route) })),
  );
  const request = routeArb.chain((route) =>
    fc
      .record({
        method: fc.oneof(
          { weight: 9, arbitrary: fc.constant(route.method) },
          { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
        ),
        id: idArb,
        query: queryText(route.query, route.querySchemas),
        body: route.body || route.method !== "GET" ? bodyText(route.body) : fc.constant(undefined),
        apiKey: apiKeyArb,
        cookie: cookieArb,
        contentType: contentTypeArb,
        requestId: fc.option(fc.string({ maxLength: 80 }).map(printable), { nil: undefined }),
        knownPassword: fc.boolean(),
      })
      .map(
        ({
          method,
          id,
          query,
          body: generated,
          apiKey,
          cookie: cookieValue,
          contentType,
          requestId,
          knownPassword,
        }): FuzzRequest => {
          // Changing a second factor asks for the current password: half the bodies carry the
          // owner's, so those routes are fuzzed past the password check too.
          const body = knownPassword ? withOwnerPassword(generated) : generated;
          const headers: Record<string, string> = {};
          if (route.auth === "merchant") headers["x-api-key"] = apiKey;
          if (route.auth === "admin") headers.cookie = cookieValue;
          if (body !== undefined && contentType !== "") headers["content-type"] = contentType;
          if (requestId !== undefined) headers["x-request-id"] = requestId;
          const path = route.path.replace(/\{[^}]+\}/g, id);
          return { method, url: query ? `${path}?${query}` : path, headers, body };
        },
      ),
  );

  const snapshot = async (): Promise<string> => {
    const result = (await t.ctx.db.execute(SNAPSHOT)) as unknown as { rows: unknown[] };
    return JSON.stringify(result.rows[0]);
  };
  let last = await snapshot();

  /** The reason a reply breaks the shape properties, or null. */
  const shapeProblem = (status: number, contentType: string | undefined, text: string): string | null => {
    // 503 SERVICE_UNAVAILABLE is the documented answer when a dependency is down (the fuzz app has
    // no chain node, so the devnet-only simulate route cannot reach one); any other 5xx is a bug.
    const unavailable = status === 503 && /"code":"SERVICE_UNAVAILABLE"/.test(text);
    if (status >= 500 && !unavailable) return `answered ${status}: ${text.slice(0, 300)}`;
    if (status < 400) return null;
    if (!/^application\/json/.test(contentType ?? "")) return `${status} is not JSON (${contentType})`;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return `${status} body is not JSON: ${text.slice(0, 100)}`;
    }
    const keys = Object.keys(body).sort().join(",");
    if (keys !== "code,error" || typeof body.error !== "string" || typeof body.code !== "string") {
      return `${status} is not { error, code }: ${text.slice(0, 300)}`;
    }
    const documented = STATUS_BY_CODE[body.code as keyof typeof STATUS_BY_CODE];
    if (documented !== status) return `code ${body.code} is not documented for ${status}`;
    return null;
  };

  /** A refused request must leave the database as it was. */
  const databaseProblem = async (status: number): Promise<string | null> => {
    const now = await snapshot();
    const changed = status >= 400 && now !== last;
    last = now;
    return changed ? `refused with ${status} but changed the database` : null;
  };

  return {
    t,
    apiKey: self.api_key,
    routes,
    request,
    async check(req) {
      const reply = await t.app.inject({
        method: req.method as "GET",
        url: req.url,
        headers: req.headers,
        ...(req.body === undefined ? {} : { payload: req.body }),
      });
      const status = reply.statusCode;
      const shape =
        req.method === "HEAD"
          ? status >= 500
            ? `answered ${status}`
            : null
          : shapeProblem(status, reply.headers["content-type"] as string | undefined, reply.body);
      const problem = shape ?? (await databaseProblem(status));
      return { status, problem: problem && `${req.method} ${req.url.slice(0, 160)}: ${problem}` };
    },
    async checkRaw(bytes) {
      const raw = await new Promise<string>((resolve) => {
        const socket = connect(port, "127.0.0.1");
        const chunks: Buffer[] = [];
        const done = () => resolve(Buffer.concat(chunks).toString("latin1"));
        const timer = setTimeout(() => {
          socket.destroy();
          done();
        }, 2000);
        socket.on("data", (chunk) => chunks.push(chunk));
        socket.on("error", () => undefined);
        socket.on("close", () => {
          clearTimeout(timer);
          done();
        });
        socket.end(bytes);
      });
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
      if (!match) return { status: 0, problem: raw === "" ? null : `unparseable reply: ${raw.slice(0, 80)}` };
      const status = Number(match[1]);
      const head = raw.indexOf("\r\n\r\n");
      const headers = raw.slice(0, head);
      const contentType = /\r\ncontent-type: ([^\r]+)/i.exec(headers)?.[1];
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(headers)?.[1] ?? NaN);
      let text = raw.slice(head + 4);
      if (Number.isFinite(length)) text = Buffer.from(text, "latin1").subarray(0, length).toString("utf8");
      const isHead = bytes.toString("latin1", 0, 5) === "HEAD ";
      const shape = isHead
        ? status >= 500
          ? `answered ${status}`
          : null
        : shapeProblem(status, contentType, text);
      const problem = shape ?? (await databaseProblem(status));
      return {
        status,
        problem: problem && `raw ${JSON.stringify(bytes.toString("latin1").slice(0, 80))}: ${problem}`,
      };
    },
    async assertHealthy() {
      const live = await t.app.inject({ method: "GET", url: "/api/v1/health/live" });
      if (live.statusCode !== 200) throw new Error(`health/live answered ${live.statusCode}`);
      const created = await t.app.inject({
        method: "POST",
        url: "/api/v1/payments",
        headers: { "x-api-key": self.api_key },
        payload: {
          external_id: `fuzz-after-${Date.now()}`,
          amount: "1",
          currency: "USDT",
          callback_url: "https://shop.example.com/h",
        },
      });
      if (created.statusCode !== 201)
        throw new Error(`creating an order after the run answered ${created.statusCode}: ${created.body}`);
    },
    close: () => t.close(),
  };
}

/** Raw HTTP/1.x requests with broken framing, request lines and headers. */
export const rawRequest: fc.Arbitrary<Buffer> = fc
  .record({
    method: fc.oneof(
      fc.constantFrom("GET", "POST", "PUT", "FROB", "G\u0000T", "get", ""),
      fc.string({ unit: "binary-ascii", maxLength: 8 }),
    ),
    target: fc.oneof(
      fc.constantFrom(
        "/api/v1/health/live",
        "/api/v1/payments",
        "/api/v1/admin/stats",
        "*",
        "http://x/api/v1/health",
        "/a b",
        "/%00",
        "",
      ),
      fc.integer({ min: 1, max: 120_000 }).map((n) => `/api/v1/payments?q=${"u".repeat(n)}`),
      fc.string({ unit: "binary-ascii", maxLength: 40 }).map((s) => `/${s}`),
    ),
    version: fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/9.9", "HTTP/1.1x", "", "HTTP/2.0"),
    eol: fc.constantFrom("\r\n", "\n", "\r"),
    headers: fc.array(
      fc.oneof(
        fc.constantFrom(
          "Host: x",
          "Content-Length: 2",
          "Content-Length: -1",
          "Content-Length: 99999999999999999999",
          "Transfer-Encoding: chunked",
          "Transfer-Encoding: gzip, chunked",
          "Expect: bogus",
          "Expect: 100-continue",
          "Content-Type: application/json",
          "X-API-Key: \u0000",
          " folded: continuation",
          "NoColon",
          ": empty-name",
        ),
        fc
          .tuple(
            fc.string({ unit: "binary-ascii", maxLength: 12 }),
            fc.string({ unit: "binary-ascii", maxLength: 40 }),
          )
          .map(([k, v]) => `${k}: ${v}`),
        fc.integer({ min: 1000, max: 70_000 }).map((n) => `X-Big: ${"b".repeat(n)}`),
      ),
      { maxLength: 8 },
    ),
    manyHeaders: fc.option(fc.integer({ min: 100, max: 3000 }), { nil: undefined }),
    body: fc.oneof(
      fc.constantFrom("", "{}", "zz\r\n{}\r\n0\r\n\r\n", "0\r\n\r\n", '{"password":"x"}'),
      fc.string({ unit: "binary", maxLength: 64 }),
    ),
  })
  .map(({ method, target, version, eol, headers, manyHeaders, body }) => {
    const lines = [`${method} ${target} ${version}`.trim(), ...headers];
    if (manyHeaders !== undefined) for (let i = 0; i < manyHeaders; i++) lines.push(`X-H${i}: v`);
    return Buffer.from(`${lines.join(eol)}${eol}${eol}${body}`, "utf8");
  });

/** The body with `current_password` set to the owner's, when it is a JSON object that has one. */
function withOwnerPassword(body: string | undefined): string | undefined {
  if (body === undefined || !body.includes('"current_password"')) return body;
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return body;
    return JSON.stringify({ ...parsed, current_password: TEST_ADMIN_PASSWORD });
  } catch {
    return body;
  }
}
