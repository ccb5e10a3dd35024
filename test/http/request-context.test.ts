/**
 * Process state lives in ctx.local: a request's context (its own object, with the request's logger)
 * shares the app context's local state, so what one request cached serves the next; a second context
 * built over the same database is another process and keeps state of its own.
 */
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext, type Context } from "../../src/context.js";
import { registerRequestHooks } from "../../src/http/request-hooks.js";
import { localSlot, LocalState } from "../../src/local-state.js";
import { createLogger } from "../../src/logger.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { outsideContract } from "../helpers/contract.js";

const visits = localSlot("test visits", () => ({ count: 0 }));

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("ctx.local", () => {
  it("is shared by every request's context, so state outlives the request", async () => {
    // A bare app with the service's request hooks and a route of the test's own (outside the API).
    const app = outsideContract(Fastify());
    registerRequestHooks(app, t.ctx);
    app.get("/visit", async (request) => ({
      ownContext: request.ctx !== t.ctx,
      sharedLocal: request.ctx.local === t.ctx.local,
      count: ++request.ctx.local.get(visits).count,
    }));
    try {
      const replies = [];
      for (let i = 0; i < 3; i++) replies.push((await app.inject({ method: "GET", url: "/visit" })).json());
      expect(replies).toEqual([1, 2, 3].map((count) => ({ ownContext: true, sharedLocal: true, count })));
      expect(t.ctx.local.get(visits).count).toBe(3);
    } finally {
      await app.close();
    }
  });

  it("is per context: a second context over the same database keeps its own", async () => {
    const other: Context = await createContext(t.ctx.config, {
      database: t.testDb.database,
      clock: t.clock,
      log: createLogger({ level: "silent" }),
    });
    other.local.get(visits).count = 100;
    expect(other.local).not.toBe(t.ctx.local);
    expect(t.ctx.local.get(visits).count).not.toBe(100);
    expect({ ...other, log: t.ctx.log }.local.get(visits).count).toBe(100);
  });

  it("creates a slot's value on its first read, once, and names the slots read", () => {
    const local = new LocalState();
    let made = 0;
    const slot = localSlot("counted", () => ({ n: ++made }));
    expect(local.names()).toEqual([]);
    const first = local.get(slot);
    expect(local.get(slot)).toBe(first);
    expect(made).toBe(1);
    expect(local.names()).toEqual(["counted"]);
    // Another LocalState (another process) makes its own.
    expect(new LocalState().get(slot)).toEqual({ n: 2 });
  });
});
