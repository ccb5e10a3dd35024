/**
 * The contract check: every response an in-process app sends during the tests is checked against
 * docs/openapi.json, the document merchants integrate from. A response fails the check
 * when its route (method and path template) is not in the document, its status is not among that
 * operation's responses, or its JSON body breaks the schema of that status.
 *
 * Every Fastify instance announces itself on the `fastify.initialization` diagnostics channel (the
 * hook meant for instrumentation), before any plugin or route is registered, so an onSend hook added
 * there reaches every route of every app a test builds (buildApp, buildOpsApp, hand-built ones)
 * without the production code knowing about tests. test/helpers/contract-setup.ts installs it for
 * every test file and fails the test whose responses broke the contract.
 *
 * Outside the document on purpose: the document itself and its reference page (not checked), and
 * the routes outside /api/ (the dashboard and checkout pages, their assets, /metrics), whose only
 * JSON is an error. A JSON response of those, or of a request that matched no route, must be an
 * error status with the one error shape of the service (components.schemas.Error).
 */
import { subscribe } from "node:diagnostics_channel";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { DOCS_PATH, OPENAPI_PATH } from "../../src/http/openapi.js";

export const OPENAPI_FILE = fileURLToPath(new URL("../../docs/openapi.json", import.meta.url));

// ajv-formats is CommonJS; under Node's ESM loader its default export is the function itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export interface ContractViolation {
  method: string;
  /** The route's path template as the document spells it, or the URL when no route matched. */
  route: string;
  status: number;
  problem: string;
}

type Json = Record<string, unknown>;
type Operation = { responses?: Record<string, { content?: Record<string, { schema?: Json }> }> };

interface Contract {
  paths: Record<string, Record<string, Operation>>;
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

const COMPONENTS_ID = "https://stablegate.invalid/openapi.json";
const LOCAL_SCHEMAS = "#/components/schemas/";

let contract: Contract | undefined;
const violations: ContractViolation[] = [];
let checked = 0;

function loadContract(): Contract {
  if (contract) return contract;
  const doc = JSON.parse(readFileSync(OPENAPI_FILE, "utf8")) as Json;
  // OpenAPI's own annotations are not JSON Schema keywords; everything else is checked strictly.
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
  ajv.addVocabulary(["example", "discriminator", "xml", "externalDocs"]);
  addFormats(ajv);
  // The document's named schemas, which the response schemas refer to as "#/components/schemas/…".
  const schemas = (doc.components as { schemas?: Json } | undefined)?.schemas ?? {};
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: rebase(schemas) });
  contract = { paths: doc.paths as Contract["paths"], ajv, validators: new Map() };
  return contract;
}

/** "/api/v1/payments/:id" (Fastify) → "/api/v1/payments/{id}" (OpenAPI). */
function template(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `${e.instancePath || "(body)"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`)
    .join("; ");
}

function validatorFor(c: Contract, key: string, schema: Json): ValidateFunction {
  let validate = c.validators.get(key);
  if (!validate) {
    validate = c.ajv.compile(rebase(schema) as Json);
    c.validators.set(key, validate);
  }
  return validate;
}

/** Points the document's references ("#/components/schemas/X") at the schemas registered above. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] =
      key === "$ref" && typeof value === "string" && value.startsWith(LOCAL_SCHEMAS)
        ? `${COMPONENTS_ID}#/$defs/${value.slice(LOCAL_SCHEMAS.length)}`
        : rebase(value);
  }
  return out;
}

function isExempt(path: string): boolean {
  return path === OPENAPI_PATH || path === DOCS_PATH || path.startsWith(`${DOCS_PATH}/`);
}

export interface CheckedResponse {
  method: string;
  /** The matched route's URL (Fastify syntax), undefined when no route matched. */
  routeUrl: string | undefined;
  url: string;
  status: number;
  contentType: string | undefined;
  /** The serialized body, when it is a string or a buffer. */
  body: string | undefined;
}

/** The contract's verdict on one response: undefined when it is documented, else the problem. */
export function checkResponse(response: CheckedResponse): ContractViolation | undefined {
  const c = loadContract();
  const method = response.method.toLowerCase() === "head" ? "get" : response.method.toLowerCase();
  const path = response.url.split("?")[0]!;
  const isJson = /^application\/(?:[\w.+-]+\+)?json\b/.test(response.contentType ?? "");
  const fail = (route: string, problem: string): ContractViolation => ({
    method: response.method,
    route,
    status: response.status,
    problem,
  });

  const checkError = (route: string): ContractViolation | undefined => {
    if (response.status < 400) return fail(route, "answered JSON with a success status outside the document");
    return checkBody(c, `error ${response.status}`, { $ref: "#/components/schemas/Error" }, response, route);
  };
  if (response.routeUrl === undefined) {
    // No route matched (404 for an unknown URL, or the request was refused before routing).
    if (!isJson) return fail(path, `answered ${response.contentType ?? "no content type"}, not a JSON error`);
    return checkError(path);
  }
  const route = template(response.routeUrl);
  if (isExempt(route)) return undefined;
  const operation = c.paths[route]?.[method];
  if (!operation) {
    if (route.startsWith("/api/")) return fail(route, "the route is not in docs/openapi.json");
    return isJson ? checkError(route) : undefined;
  }
  const responses = operation.responses ?? {};
  const status = String(response.status);
  const key = [status, `${status[0]}XX`, "default"].find((k) => k in responses);
  if (!key)
    return fail(
      route,
      `status ${status} is not documented (documented: ${Object.keys(responses).join(", ")})`,
    );
  if (response.method.toLowerCase() === "head") return undefined;
  const content = responses[key]!.content;
  if (!isJson) {
    if (content && !Object.keys(content).some((type) => response.contentType?.startsWith(type))) {
      return fail(route, `content type ${response.contentType ?? "(none)"} is not documented for ${key}`);
    }
    return undefined;
  }
  const schema = content?.["application/json"]?.schema;
  if (!schema) return fail(route, `a JSON body is not documented for ${key}`);
  return checkBody(c, `${method} ${route} ${key}`, schema, response, route);
}

function checkBody(
  c: Contract,
  key: string,
  schema: Json,
  response: CheckedResponse,
  route: string,
): ContractViolation | undefined {
  let body: unknown;
  try {
    body = JSON.parse(response.body ?? "");
  } catch {
    return { method: response.method, route, status: response.status, problem: "the body is not valid JSON" };
  }
  const validate = validatorFor(c, key, schema);
  if (validate(body)) return undefined;
  return {
    method: response.method,
    route,
    status: response.status,
    problem: `the body breaks the documented schema: ${describeErrors(validate.errors)}; body: ${JSON.stringify(body).slice(0, 500)}`,
  };
}

function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: () => void): void {
  checked += 1;
  try {
    const violation = checkResponse({
      method: request.method,
      routeUrl: request.is404 ? undefined : request.routeOptions.url,
      url: request.url,
      status: reply.statusCode,
      contentType: reply.getHeader("content-type") as string | undefined,
      body:
        typeof payload === "string"
          ? payload
          : Buffer.isBuffer(payload)
            ? payload.toString("utf8")
            : undefined,
    });
    if (violation) violations.push(violation);
  } catch (err) {
    violations.push({
      method: request.method,
      route: request.url,
      status: reply.statusCode,
      problem: `the contract check itself failed: ${(err as Error).message}`,
    });
  }
  done();
}

let installed = false;
const outside = new WeakSet<FastifyInstance>();

/**
 * Leaves an app that is not Stablegate's out of the check: a merchant's own server in the SDK's
 * tests answers its own routes, which the document rightly does not describe.
 */
export function outsideContract<T extends FastifyInstance>(app: T): T {
  outside.add(app);
  return app;
}

/** Checks every response of every Fastify instance created from now on in this process. */
export function installContractCheck(): void {
  if (installed) return;
  installed = true;
  subscribe("fastify.initialization", (message) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook("onSend", (request, reply, payload, done) => {
      if (outside.has(fastify)) done();
      else onSend(request, reply, payload, done);
    });
  });
}

/** How many responses the check has seen in this process (the self-test proves apps are covered). */
export function checkedResponses(): number {
  return checked;
}

/** The violations recorded since the last call (and forgets them). */
export function takeViolations(): ContractViolation[] {
  return violations.splice(0);
}

export function formatViolations(list: ContractViolation[]): string {
  return [
    `${list.length} response(s) do not match docs/openapi.json (fix the document or the route, then npm run generate:openapi):`,
    ...list.map((v) => `  ${v.method} ${v.route} → ${v.status}: ${v.problem}`),
  ].join("\n");
}
