/**
 * The web UI (web/, built by Vite into web/dist, DESIGN.md 1): the hosted checkout page at
 * GET /checkout/:id, which the checkout_url of every order points to. The page itself only reads the
 * public GET /api/v1/checkout/:id/status. Hashed assets are cached for a year; the page never is.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import type { FastifyPluginAsync } from "fastify";
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
  let page: string | null = null;

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

  app.get("/checkout/:id", { schema: { hide: true } }, async (_request, reply) => {
    if (bundleDir === null) {
      throw new AppError("SERVICE_UNAVAILABLE", "the web UI is not built: run npm run build:web");
    }
    page ??= await readFile(join(bundleDir, "index.html"), "utf8");
    return reply
      .type("text/html; charset=utf-8")
      .header("Cache-Control", "no-cache")
      .header("X-Robots-Tag", "noindex")
      .send(page);
  });
};
