/**
 * Requests that Node's HTTP parser refuses before any route runs, sent as raw bytes over a real
 * socket to a listening app: each still answers { error, code } with the proper status, and the
 * server keeps serving.
 */
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STATUS_BY_CODE } from "../../src/errors.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await t.close();
});

/** Sends raw bytes and reads until the server closes or a response is complete. */
function rawRequest(bytes: string | Buffer, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString("latin1"));
    }, timeoutMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", (error) => {
      // A reset after the reply was written still delivered the reply.
      if (chunks.length > 0) return;
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("latin1"));
    });
    socket.write(bytes);
  });
}

function parse(raw: string): { status: number; body: Record<string, unknown> } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
  const head = raw.indexOf("\r\n\r\n");
  const text = head === -1 ? "" : raw.slice(head + 4);
  // Keep-alive replies end with the body; chunked ones are not produced for errors.
  return { status, body: JSON.parse(text) as Record<string, unknown> };
}

function expectShaped(raw: string, status: number, code: string): void {
  const reply = parse(raw);
  expect(reply.status, raw.slice(0, 200)).toBe(status);
  expect(Object.keys(reply.body).sort()).toEqual(["code", "error"]);
  expect(reply.body.code).toBe(code);
  expect(typeof reply.body.error).toBe("string");
  expect(STATUS_BY_CODE[code as keyof typeof STATUS_BY_CODE]).toBe(status);
}

const GET = (target: string, headers: string[] = ["Host: x"]) =>
  `GET ${target} HTTP/1.1\r\n${headers.map((h) => `${h}\r\n`).join("")}Connection: close\r\n\r\n`;

describe("protocol-level refusals over a real socket", () => {
  const cases: Array<[string, () => string | Buffer, number, string]> = [
    [
      "a 64 KB X-API-Key",
      () => GET("/api/v1/payments", ["Host: x", `X-API-Key: ${"k".repeat(65536)}`]),
      431,
      "HEADERS_TOO_LARGE",
    ],
    [
      "a 64 KB cookie",
      () => GET("/api/v1/admin/stats", ["Host: x", `Cookie: a=${"c".repeat(65536)}`]),
      431,
      "HEADERS_TOO_LARGE",
    ],
    [
      "a 12 KB cookie with a 6 KB query",
      () => GET(`/api/v1/payments?q=${"q".repeat(6144)}`, ["Host: x", `Cookie: a=${"c".repeat(12288)}`]),
      431,
      "HEADERS_TOO_LARGE",
    ],
    ["a 100 KB URL", () => GET(`/api/v1/payments?q=${"u".repeat(102400)}`), 414, "URI_TOO_LONG"],
    [
      "a 10 KB URL (within the parser's limit)",
      () => GET(`/api/v1/health?q=${"u".repeat(10240)}`),
      414,
      "URI_TOO_LONG",
    ],
    [
      "3,000 headers",
      () => GET("/api/v1/health", ["Host: x", ...Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`)]),
      431,
      "HEADERS_TOO_LARGE",
    ],
    [
      "Content-Length together with Transfer-Encoding",
      () =>
        "POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      400,
      "BAD_REQUEST",
    ],
    [
      "two Content-Lengths",
      () => "POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
      400,
      "BAD_REQUEST",
    ],
    [
      "a bad chunk size",
      () =>
        "POST /api/v1/admin/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
      400,
      "BAD_REQUEST",
    ],
    ["a NUL in a header", () => GET("/api/v1/health", ["Host: x", "X-Evil: a\u0000b"]), 400, "BAD_REQUEST"],
    ["a space in the path", () => "GET /api/v1/he alth HTTP/1.1\r\nHost: x\r\n\r\n", 400, "BAD_REQUEST"],
    ["an unknown method", () => "FROB /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n", 405, "METHOD_NOT_ALLOWED"],
    ["HTTP/9.9", () => "GET /api/v1/health HTTP/9.9\r\nHost: x\r\n\r\n", 400, "BAD_REQUEST"],
    ["bare LF line endings", () => "GET /api/v1/health HTTP/1.1\nHost: x\n\n", 400, "BAD_REQUEST"],
    [
      "HTTP/1.1 without Host",
      () => "GET /api/v1/health/live HTTP/1.1\r\nConnection: close\r\n\r\n",
      400,
      "BAD_REQUEST",
    ],
    [
      "Expect: bogus",
      () => GET("/api/v1/health/live", ["Host: x", "Expect: bogus"]),
      417,
      "EXPECTATION_FAILED",
    ],
  ];

  it.each(cases)("answers %s in the { error, code } shape", async (_name, request, status, code) => {
    expectShaped(await rawRequest(request()), status, code);
  });

  it("answers a method llhttp knows but no route serves with 404 in the shape", async () => {
    const raw = await rawRequest("PROPFIND /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const reply = parse(raw);
    expect([404, 405]).toContain(reply.status);
    expect(Object.keys(reply.body).sort()).toEqual(["code", "error"]);
  });

  it("keeps HTTP/1.0 without Host working, and keeps serving after every refusal", async () => {
    const raw = await rawRequest("GET /api/v1/health/live HTTP/1.0\r\n\r\n");
    expect(parse(raw).status).toBe(200);
    const again = await rawRequest(GET("/api/v1/health/live"));
    expect(parse(again).status).toBe(200);
  });
});
