/**
 * The OpenAPI 3.1 document (built by @fastify/swagger from the routes' zod schemas) at
 * /api/v1/openapi.json, and the API reference page rendered from it (Swagger UI) at /api/v1/docs.
 */
import fastifySwagger from "@fastify/swagger";
import fastifySwaggerUi from "@fastify/swagger-ui";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import type { App } from "./app.js";

export const OPENAPI_PATH = "/api/v1/openapi.json";
export const DOCS_PATH = "/api/v1/docs";

/** Registers the document generator; call before the routes so it sees them all. */
export async function registerOpenApi(app: App): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: { title: "Stablegate API", version: "1.0.0" },
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
          adminCookie: { type: "apiKey", in: "cookie", name: "admin_token" },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
}

/** The JSON document and the reference page; call after the routes. */
export async function registerApiReference(app: App): Promise<void> {
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  await app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PATH,
    uiConfig: { docExpansion: "list", deepLinking: true, defaultModelsExpandDepth: 0 },
  });
}
