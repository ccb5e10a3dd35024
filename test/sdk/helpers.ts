/** SDK test helpers: a scripted node:http API stand-in that records when each request arrived. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";

export interface Arrival {
  at: number;
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface ScriptedServer {
  url: string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

/** Answers the n-th request (0-based) with `script(n, arrival, res)`. */
export async function startScriptedServer(
  script: (n: number, arrival: Arrival, res: ServerResponse, req: IncomingMessage) => void,
): Promise<ScriptedServer> {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const arrival = {
        at,
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      arrivals.push(arrival);
      script(arrivals.length - 1, arrival, res, req);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}

/** A port nothing listens on (bound, read, released). */
export async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}
