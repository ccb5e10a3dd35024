// The HTTP front: node:http without a framework (gettransactioninfobyblocknum must stay cheap), java-tron
// parameter handling (query and JSON body merged, `visible`), request counters and fault injection.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import * as control from "./control-api.js";
import { BadRequest, type ControlCtx } from "./control-api.js";
import { laggedChain } from "./lag.js";
import { toJson } from "./util.js";
import { walletHandler } from "./wallet-api.js";

const MAX_BODY = 4 * 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new BadRequest("body too large"));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

type ControlRoute = (ctx: ControlCtx, body: Record<string, unknown>) => Record<string, unknown>;

const CONTROL: Record<string, { method: "GET" | "POST"; run: ControlRoute }> = {
  "/devnet/info": { method: "GET", run: (ctx) => control.info(ctx) },
  "/devnet/requests/reset": { method: "POST", run: (ctx) => control.resetRequests(ctx) },
  "/devnet/mine": { method: "POST", run: control.mine },
  "/devnet/time": { method: "POST", run: control.time },
  "/devnet/fund": { method: "POST", run: control.fund },
  "/devnet/tokens": { method: "POST", run: control.tokens },
  "/devnet/faults": { method: "POST", run: control.faults },
  "/devnet/fork": { method: "POST", run: control.fork },
  "/devnet/load": { method: "POST", run: control.load },
};

function parseJsonObject(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  const v: unknown = JSON.parse(text);
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new SyntaxError("body must be a JSON object");
  return v as Record<string, unknown>;
}

async function handleControl(
  ctx: ControlCtx,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const route = CONTROL[path];
  if (!route) return send(res, 404, toJson({ error: `unknown control endpoint ${path}` }));
  if (req.method !== route.method && !(route.method === "GET" && req.method === "POST")) {
    return send(res, 405, toJson({ error: `${path} takes ${route.method}` }));
  }
  let body: Record<string, unknown>;
  try {
    body = parseJsonObject(await readBody(req));
  } catch (e) {
    return send(res, 400, toJson({ error: `invalid JSON body: ${(e as Error).message}` }));
  }
  try {
    send(res, 200, toJson(route.run(ctx, body)));
  } catch (e) {
    if (e instanceof BadRequest) return send(res, 400, toJson({ error: e.message }));
    throw e;
  }
}

async function handleNode(
  ctx: ControlCtx,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  prefix: "wallet" | "walletsolidity",
  name: string,
): Promise<void> {
  const path = url.pathname;
  // A node that went away: the connection is cut before any reply (not counted as a request).
  if (ctx.faults.down) return void req.socket.destroy();
  ctx.counters.total++;
  ctx.counters.byPath.set(path, (ctx.counters.byPath.get(path) ?? 0) + 1);
  const fault = ctx.faults.decide(path);
  if (fault.latencyMs > 0) await sleep(fault.latencyMs);
  if (fault.kind === "429")
    return send(res, 429, toJson({ Error: "rate limit exceeded (devnet fault injection)" }));
  if (fault.kind === "500")
    return send(res, 500, toJson({ Error: "internal server error (devnet fault injection)" }));
  const handler = walletHandler(prefix, name);
  if (!handler) return send(res, 404, toJson({ Error: `no such API: ${path}` }));
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  try {
    Object.assign(params, parseJsonObject(await readBody(req)));
  } catch (e) {
    return send(
      res,
      200,
      toJson({ Error: `class com.alibaba.fastjson.JSONException : ${(e as Error).message}` }),
    );
  }
  const visible = params.visible === true || params.visible === "true";
  const chain = laggedChain(ctx.chain, ctx.faults.lagBlocks);
  const reply = handler(params, { chain, solid: prefix === "walletsolidity", visible });
  const text = typeof reply === "string" ? reply : toJson(reply);
  // A truncated body: what a proxy cut short mid-reply looks like to a client.
  if (fault.kind === "malformed")
    return send(res, 200, text.slice(0, Math.max(1, Math.floor(text.length / 2))));
  send(res, 200, text);
}

export function createDevnetServer(ctx: ControlCtx, log: (msg: string) => void): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://devnet");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const m = /^\/(wallet|walletsolidity)\/([A-Za-z0-9]+)$/.exec(path);
    const work = path.startsWith("/devnet/")
      ? handleControl(ctx, req, res, path)
      : m
        ? handleNode(ctx, req, res, url, m[1] as "wallet" | "walletsolidity", m[2] as string)
        : Promise.resolve(send(res, 404, toJson({ Error: `no such API: ${path}` })));
    work.catch((e: unknown) => {
      log(`devnet: ${req.method} ${path} failed: ${(e as Error).stack ?? String(e)}`);
      if (!res.headersSent)
        send(res, 500, toJson({ Error: `class java.lang.RuntimeException : ${(e as Error).message}` }));
      else res.destroy();
    });
  });
}
