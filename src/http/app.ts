/**
 * buildApp(ctx) builds the Fastify application without listening, so tests drive the real app with
 * app.inject and the server entry (server.ts) only adds the socket and signals.
 */
import { randomUUID } from "node:crypto";
import fastifyCookie from "@fastify/cookie";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from "fastify";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { zodSchemaController } from "./zod-compilers.js";
import sjson from "secure-json-parse";
import type { Context } from "../context.js";
import { registerRequestHooks } from "./request-hooks.js";
import { lazyChildLogger, type Logger } from "../logger.js";
import { AppError } from "../errors.js";
import { registerErrorHandling, sendError } from "./errors.js";
import { registerApiReference, registerOpenApi } from "./openapi.js";
import { findInputViolation } from "./input-rule.js";
import { handleClientError, installExpectationHandler, refuseMalformedRequest } from "./protocol-errors.js";
import { securityHeaders } from "./security-headers.js";
import { webRoutes } from "./routes/web.js";
import { adminRoutes } from "./routes/admin/index.js";
import { merchantRoutes } from "./routes/merchant/index.js";
import { publicRoutes } from "./routes/public/index.js";
import { metricsRoutes } from "./routes/metrics.js";

export const BODY_LIMIT_BYTES = 32 * 1024;

/** A route as Fastify registered it, with the permission an admin route declares. */
export interface RegisteredRoute {
  method: string;
  url: string;
  permission: string | undefined;
}

declare module "fastify" {
  interface FastifyInstance {
    /** Every route Fastify registered (from its onRoute hook): what the permission test walks. */
    registeredRoutes: readonly RegisteredRoute[];
  }
}
const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/**
 * TRUST_PROXY for Fastify. A hop count becomes proxy-addr's hop function (the socket and the N-1
 * entries right of the client are ours), as Express counts hops: Fastify's own numeric setting
 * trusts no hop at all. A list is copied: proxy-addr keeps what it compiles.
 */
function fastifyTrustProxy(
  trust: Context["config"]["trustProxy"],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === "number") return (_address, hop) => hop < trust;
  return typeof trust === "boolean" ? trust : [...trust];
}

export async function buildApp(ctx: Context): Promise<App> {
  const app = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: fastifyTrustProxy(ctx.config.trustProxy),
    genReqId: (req) => {
      const incoming = req.headers["x-request-id"];
      return typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    requestIdHeader: false,
    // Each request's child logger is made only when the request logs (src/logger.ts).
    childLoggerFactory: (logger, bindings, options) =>
      lazyChildLogger(logger as unknown as Logger, bindings, options) as unknown as FastifyBaseLogger,
    return503OnClosing: true,
    schemaController: zodSchemaController,
    // Node's own Host check answers an empty 400; refuseMalformedRequest answers it in our shape.
    http: { requireHostHeader: false },
    clientErrorHandler: handleClientError,
    // Router-level failures (an undecodable URL such as /merchants/%ff, a path parameter over
    // maxParamLength) skip the error handler; they name no resource, so they are 404 like any
    // malformed id, in the { error, code } shape.
    frameworkErrors: (error, request, reply) => {
      reply.header("X-Request-Id", request.id);
      const appError =
        error.code === "FST_ERR_BAD_URL" || error.code === "FST_ERR_MAX_PARAM_LENGTH"
          ? new AppError("NOT_FOUND", "route not found")
          : new AppError("INTERNAL_ERROR", "internal error");
      void sendError(reply, appError);
    },
  }).withTypeProvider<ZodTypeProvider>();

  // First, so it sees every route registered below.
  const registeredRoutes: RegisteredRoute[] = [];
  app.decorate("registeredRoutes", registeredRoutes);
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const permission = (route.config as { permission?: string } | undefined)?.permission;
    for (const method of methods) registeredRoutes.push({ method, url: route.url, permission });
  });

  installExpectationHandler(app.server);
  registerErrorHandling(app);

  // All bodies are JSON (SPEC.md 4): text/plain gets no parser, so it answers 415 like form bodies
  // and bodies without a content type (DESIGN.md 8: with SameSite=Strict this closes CSRF).
  // An empty body with a JSON content type is "no body" (bodiless POSTs from fetch-style clients);
  // anything else must be valid JSON without prototype pollution.
  app.removeContentTypeParser(["application/json", "text/plain"]);
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, sjson.parse(text, undefined, { protoAction: "error", constructorAction: "error" }));
    } catch {
      done(new AppError("INVALID_BODY", "request body is not valid JSON"), undefined);
    }
  });

  registerRequestHooks(app as unknown as FastifyInstance, ctx);

  // The one string rule (src/http/input-rule.ts) over everything a route receives, before any
  // route's schema: a new route or field cannot forget it.
  app.addHook("preValidation", async (request) => {
    const inBody = findInputViolation(request.body, "body");
    if (inBody) {
      // Routes that validate their own body (attachValidation) answer VALIDATION_ERROR (SPEC 4.4).
      const code = request.routeOptions.attachValidation ? "VALIDATION_ERROR" : "INVALID_BODY";
      throw new AppError(code, `${inBody.path}: ${inBody.reason}`);
    }
    const inQuery = findInputViolation(request.query, "query");
    if (inQuery) throw new AppError("INVALID_QUERY", `${inQuery.path}: ${inQuery.reason}`);
    // A path parameter names a resource; one that no resource could have is simply not found.
    if (findInputViolation(request.params)) throw new AppError("NOT_FOUND", "resource not found");
  });

  const headers = securityHeaders({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'"],
        connectSrc: ["'self'"],
        frameAncestors: ["'none'"],
        // Production runs behind TLS. In development the pages are also opened over plain http on
        // a LAN address (a phone paying a demo order), where upgrading /assets/* to https would
        // leave a blank page.
        upgradeInsecureRequests: ctx.config.isProduction ? [] : null,
      },
    },
    hsts: ctx.config.isProduction,
  });
  app.addHook("onRequest", async (request, reply) => {
    reply.headers(headers);
    const refused = refuseMalformedRequest(request.raw);
    if (refused) throw refused;
  });
  await app.register(fastifyCookie);
  await registerOpenApi(app);

  // Route modules. Each scope gets its own authentication plugin (registered with fastify-plugin
  // inside the scope), so a route can never be mounted without it.
  await app.register(publicRoutes, { ctx });
  await app.register(merchantRoutes, { ctx });
  await app.register(adminRoutes, { ctx });
  await app.register(webRoutes);
  await app.register(metricsRoutes, { ctx });

  await registerApiReference(app);
  return app;
}
