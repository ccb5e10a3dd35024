/**
 * The contract check (test/helpers/contract.ts) must be able to fail: an app whose routes answer
 * outside docs/openapi.json is reported with its route, status and the schema errors.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { checkResponse, checkedResponses, formatViolations, takeViolations } from "../helpers/contract.js";

let app: FastifyInstance;

beforeAll(async () => {
  // Created after the setup file subscribed, so the check is on this app like on every test app.
  app = Fastify({ logger: false });
  app.get("/api/v1/health/live", async (request, reply) => {
    const status = Number((request.query as { status?: string }).status ?? 200);
    return reply.code(status).send({ status: "ok" });
  });
  app.post("/api/v1/payments", async (_request, reply) =>
    reply.code(201).send({ id: 42, amount: 10.5, status: "paid-ish" }),
  );
  app.get("/api/v1/undocumented", async () => ({ hello: "world" }));
  app.get("/api/v1/checkout/:id/status", async (_request, reply) =>
    reply.code(404).send({ error: "no such order", code: "EXTERNAL_ID_CONFLICT" }),
  );
  app.get("/plain", async (_request, reply) => reply.type("text/html").send("<p>page</p>"));
  app.get("/assets/*", async (request, reply) =>
    (request.params as { "*": string })["*"] === "secret"
      ? reply.code(403).send({ error: "forbidden", code: "ADMIN_UNAUTHORIZED" })
      : reply.send({ file: "a.js" }),
  );
  await app.ready();
});

afterAll(async () => {
  await app.close();
});

describe("the contract check", () => {
  it("records nothing for a documented route, status and body", async () => {
    const res = await app.inject({ method: "GET", url: "/api/v1/health/live" });
    expect(res.statusCode).toBe(200);
    expect(takeViolations()).toEqual([]);
  });

  it("reports a status the operation does not document", async () => {
    await app.inject({ method: "GET", url: "/api/v1/health/live?status=418" });
    const violations = takeViolations();
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ method: "GET", route: "/api/v1/health/live", status: 418 });
    expect(violations[0]!.problem).toMatch(/status 418 is not documented/);
  });

  it("reports a body that breaks the schema, with Ajv's errors", async () => {
    await app.inject({ method: "POST", url: "/api/v1/payments", payload: {} });
    const [violation, ...rest] = takeViolations();
    expect(rest).toEqual([]);
    expect(violation).toMatchObject({ method: "POST", route: "/api/v1/payments", status: 201 });
    expect(violation!.problem).toMatch(/breaks the documented schema/);
    expect(violation!.problem).toMatch(/\/id must be string/);
    expect(formatViolations([violation!])).toContain("POST /api/v1/payments → 201:");
  });

  it("reports an error code the route's status does not list", async () => {
    await app.inject({ method: "GET", url: "/api/v1/checkout/abc/status" });
    const violations = takeViolations();
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ route: "/api/v1/checkout/{id}/status", status: 404 });
    expect(violations[0]!.problem).toMatch(/\/code must be equal to one of the allowed values/);
  });

  it("reports a route that is not in the document", async () => {
    await app.inject({ method: "GET", url: "/api/v1/undocumented" });
    expect(takeViolations()).toEqual([
      expect.objectContaining({
        route: "/api/v1/undocumented",
        problem: expect.stringMatching(/not in docs/),
      }),
    ]);
  });

  it("reports an unknown URL answered outside the error shape, and accepts the shaped 404", async () => {
    await app.inject({ method: "GET", url: "/api/v1/nothing-here" });
    // Fastify's default 404 body is { message, error, statusCode }, not { error, code }.
    expect(takeViolations()).toEqual([
      expect.objectContaining({ route: "/api/v1/nothing-here", status: 404 }),
    ]);
    expect(
      checkResponse({
        method: "GET",
        routeUrl: undefined,
        url: "/api/v1/nothing-here",
        status: 404,
        contentType: "application/json; charset=utf-8",
        body: JSON.stringify({ error: "route not found", code: "NOT_FOUND" }),
      }),
    ).toBeUndefined();
  });

  it("leaves pages outside /api/ that answer no JSON alone, and holds their JSON to the error shape", async () => {
    const res = await app.inject({ method: "GET", url: "/plain" });
    expect(res.statusCode).toBe(200);
    await app.inject({ method: "GET", url: "/assets/secret" });
    expect(takeViolations()).toEqual([]);
    await app.inject({ method: "GET", url: "/assets/a" });
    expect(takeViolations()).toEqual([
      expect.objectContaining({ route: "/assets/*", status: 200, problem: expect.stringMatching(/success/) }),
    ]);
  });
});

describe("the contract check on a real app", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it("sees every response of the apps the integration tests build", async () => {
    const before = checkedResponses();
    const res = await t.app.inject({ method: "GET", url: "/api/v1/merchant/me" });
    expect(res.statusCode).toBe(401);
    expect(checkedResponses()).toBe(before + 1);
    expect(takeViolations()).toEqual([]);
  });
});
