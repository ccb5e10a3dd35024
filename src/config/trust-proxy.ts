/**
 * TRUST_PROXY (DESIGN.md 12): which X-Forwarded-For entries name the client. The login limiter and
 * the audit log key on the client address, so trusting an entry a client can write lets one
 * client appear as any number of addresses.
 *
 * - unset, `false`, `0`: no proxy; the socket's address is the client.
 * - a hop count `N` (1 to 16): N proxies of ours stand in front; the client is the address the
 *   outermost of them appended (the N-th entry from the right). Behind one Caddy or nginx: `1`.
 * - a comma-separated list of proxy addresses or CIDRs (`10.0.0.5`, `172.16.0.0/12`, or proxy-addr's
 *   `loopback`, `linklocal`, `uniquelocal`): entries are skipped from the right while they are one
 *   of these; the first that is not is the client.
 * - `true` trusts every hop: the client is the LEFTMOST entry, which the client itself writes
 *   whenever a proxy appends (nginx's `$proxy_add_x_forwarded_for`). Refused in production.
 */
import { isIP } from "node:net";
import { ConfigError } from "./env-values.js";

export type TrustProxy = boolean | number | readonly string[];

const MAX_HOPS = 16;
const NAMED_RANGES = new Set(["loopback", "linklocal", "uniquelocal"]);

export function trustProxy(raw: string | undefined, isProduction: boolean): TrustProxy {
  const value = raw?.trim();
  if (value === undefined || value === "" || /^(0|false|no|off)$/i.test(value)) return false;
  if (/^(true|yes|on)$/i.test(value)) {
    if (isProduction) {
      throw new ConfigError(
        "TRUST_PROXY",
        "true is refused in production: it takes the leftmost X-Forwarded-For, which any client writes itself; " +
          "set the number of proxies in front (1 behind one Caddy or nginx) or their addresses/CIDRs",
      );
    }
    return true;
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > MAX_HOPS) throw new ConfigError("TRUST_PROXY", `a hop count must be 1 to ${MAX_HOPS}`);
    return hops;
  }
  const entries = value.split(",").map((entry) => entry.trim());
  for (const entry of entries) {
    if (!isProxyAddress(entry)) {
      throw new ConfigError(
        "TRUST_PROXY",
        "an entry is neither an IP address nor a CIDR; use false, a hop count, or proxy addresses/CIDRs separated by commas",
      );
    }
  }
  return Object.freeze(entries);
}

function isProxyAddress(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, prefix, extra] = entry.split("/");
  if (address === undefined || extra !== undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}
