/**
 * The admin API (SPEC.md 4.3-4.5) as the dashboard calls it: same origin, the admin_token cookie.
 * The replies' types are in ../api-types.ts, generated from the OpenAPI document.
 */
import type { ErrorBody, ErrorCode } from "../api-types.js";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** "ERROR" when the reply was not the API's error shape (a proxy's page, a dropped connection). */
    readonly code: ErrorCode | "ERROR",
    message: string,
  ) {
    super(message);
  }
}

/** Set by the app: called when the session is missing or expired, so it can show the login. */
let onUnauthorized: () => void = () => undefined;
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/api/v1/admin${path}`, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? { accept: "application/json" } : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = (await response.json().catch(() => ({}))) as Partial<ErrorBody>;
  if (!response.ok) {
    const error = new ApiError(
      response.status,
      data.code ?? "ERROR",
      data.error ?? `HTTP ${response.status}`,
    );
    // Only a missing or ended session signs out; TOTP_REQUIRED / TOTP_INVALID (401 too) ask for a code.
    if (error.code === "ADMIN_UNAUTHORIZED" || error.code === "ADMIN_TOKEN_INVALID") onUnauthorized();
    throw error;
  }
  return data as T;
}

export const api = {
  get: <T>(path: string) => request<T>("GET", path),
  post: <T>(path: string, body?: unknown) => request<T>("POST", path, body),
  put: <T>(path: string, body: unknown) => request<T>("PUT", path, body),
  patch: <T>(path: string, body: unknown) => request<T>("PATCH", path, body),
  del: <T>(path: string, body?: unknown) => request<T>("DELETE", path, body),
};
