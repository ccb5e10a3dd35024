/**
 * The web UI (web/, built by Vite into web/dist, DESIGN.md 1): the hosted checkout page at
 * GET /checkout/:id, which the checkout_url of every order points to (it only reads the public
 * GET /api/v1/checkout/:id/status), the refund claim page at GET /refund/:token (only the public
 * /api/v1/refund-claims/:token), and the operator dashboard at /admin (it calls the admin API with
 * the admin_token cookie). Hashed assets are cached for a year; the page never is.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../../errors.js";

/** web/dist from src/http/routes (tsx) or dist/src/http/routes (compiled); null before a build. */
export function findWebBundle(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ["../../..", "../../../.."]) {
    const candidate = resolve(here, up, "web", "dist");
    if (existsSync(join(candidate, "index.html"))) return candidate;
  }
  return null;
}

export const webRoutes: FastifyPluginAsync<{ bundleDir?: string | null }> = async (app, options) => {
  const bundleDir = options.bundleDir === undefined ? findWebBundle() : options.bundleDir;

  if (bundleDir !== null) {
    await app.register(fastifyStatic, {
      root: join(bundleDir, "assets"),
      prefix: "/assets/",
      decorateReply: false,
      index: false,
      immutable: true,
      maxAge: "365d",
    });
  }

  const servePage = async (_request: FastifyRequest, reply: FastifyReply) => {
    if (bundleDir === null) {
      throw new AppError("SERVICE_UNAVAILABLE", "the web UI is not built: run npm run build:web");
    }
    // Read per request (a few hundred bytes, from the page cache): a rebuilt bundle is served at once.
    const page = await readFile(join(bundleDir, "index.html"), "utf8");
    return reply
      .type("text/html; charset=utf-8")
      .header("Cache-Control", "no-cache")
      .header("X-Robots-Tag", "noindex")
      .send(page);
  };
  app.get("/checkout/:id", { schema: { hide: true } }, servePage);
  // A refund's claim page (DESIGN.md 14): reads and posts only /api/v1/refund-claims/:token.
  app.get("/refund/:token", { schema: { hide: true } }, servePage);
  // The operator dashboard: one page; its own router shows /admin/orders, /admin/orders/:id, …
  app.get("/admin", { schema: { hide: true } }, servePage);
  app.get("/admin/*", { schema: { hide: true } }, servePage);
};
