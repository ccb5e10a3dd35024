/**
 * Requests that Node's HTTP parser or server refuses before Fastify routes them still answer the
 * service's { error, code } shape (SPEC.md 7) with the proper status: malformed framing, oversized
 * request lines and headers, unknown methods and HTTP versions, a missing Host, an unsupported
 * Expect. Nothing here reads the request's content beyond its first line.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { AppError, type ErrorCode } from "../errors.js";

/** Longest request target accepted (RFC 9112 recommends at least 8,000 octets). */
export const MAX_URL_BYTES = 8192;

const REASON: Readonly<Record<number, string>> = {
  400: "Bad Request",
  405: "Method Not Allowed",
  408: "Request Timeout",
  413: "Payload Too Large",
  414: "URI Too Long",
  417: "Expectation Failed",
  431: "Request Header Fields Too Large",
};

function rawReply(error: AppError): string {
  const body = JSON.stringify({ error: error.message, code: error.code });
  return [
    `HTTP/1.1 ${error.status} ${REASON[error.status] ?? "Bad Request"}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${randomUUID()}`,
    "X-Content-Type-Options: nosniff",
    "Cache-Control: no-store",
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/** True when the request line itself did not fit: the parser overflowed before its first newline. */
function requestLineOverflowed(error: { rawPacket?: unknown }): boolean {
  const raw = error.rawPacket;
  if (!Buffer.isBuffer(raw)) return false;
  const newline = raw.indexOf(0x0a);
  return newline === -1 ? raw.length > MAX_URL_BYTES : newline > MAX_URL_BYTES;
}

export function classifyClientError(error: NodeJS.ErrnoException & { rawPacket?: unknown }): AppError {
  const byCode = (code: ErrorCode, message: string) => new AppError(code, message);
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return requestLineOverflowed(error)
        ? byCode("URI_TOO_LONG", "request URI is too long")
        : byCode("HEADERS_TOO_LARGE", "request headers are too large");
    case "HPE_INVALID_METHOD":
      return byCode("METHOD_NOT_ALLOWED", "method not allowed");
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "HPE_HEADERS_TIMEOUT":
      return byCode("REQUEST_TIMEOUT", "request timed out");
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return byCode("PAYLOAD_TOO_LARGE", "request body is too large");
    default:
      return byCode("BAD_REQUEST", "malformed HTTP request");
  }
}

/** Fastify's `clientErrorHandler`: answers once, only if nothing was written yet, then closes. */
export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === "ECONNRESET" || error.code === "EPIPE" || socket.destroyed) return;
  if (socket.writable && socket.bytesWritten === 0) {
    socket.write(rawReply(classifyClientError(error)));
  }
  socket.destroy();
}

/**
 * Node answers an Expect other than 100-continue with an empty 417 unless someone listens; this
 * listener gives it the shape. 100-continue itself keeps Node's default handling.
 */
export function installExpectationHandler(server: Server): void {
  server.on("checkExpectation", (_request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify({
      error: "only Expect: 100-continue is supported",
      code: "EXPECTATION_FAILED",
    });
    response.writeHead(417, {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": Buffer.byteLength(body),
      Connection: "close",
    });
    response.end(body);
  });
}

/**
 * Checks Fastify cannot express as options: HTTP/1.1 requires a Host header (RFC 9112 3.2; Node's
 * own check answers an empty 400, so it is switched off and done here), and an overlong target is
 * 414 rather than a 404 for a path no route could match.
 */
export function refuseMalformedRequest(request: IncomingMessage): AppError | null {
  if ((request.url ?? "").length > MAX_URL_BYTES)
    return new AppError("URI_TOO_LONG", "request URI is too long");
  const needsHost = request.httpVersionMajor === 1 && request.httpVersionMinor >= 1;
  if (needsHost && request.headers.host === undefined) {
    return new AppError("BAD_REQUEST", "the Host header is required");
  }
  return null;
}
