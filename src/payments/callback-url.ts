import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import { assertCallbackUrlAllowed } from "../webhooks/ssrf.js";

/**
 * An order's callback_url must be an absolute http(s) URL and, with the SSRF guard on, not an IP
 * literal of a private, loopback or reserved range (hostnames are checked again at connect time).
 */
export function assertCallbackUrlAccepted(config: Config, url: string): void {
  const reason = assertCallbackUrlAllowed(config, url);
  if (reason !== null)
    throw new AppError("INVALID_BODY", `body.callback_url: ${reason.replace(/^callback_url /, "")}`);
}
