/**
 * SSRF guard for webhook callbacks. Unless WEBHOOK_ALLOW_PRIVATE_NETWORKS is on, a callback may only
 * reach a globally routable unicast address. The decision is made on the address the socket is
 * about to connect to (inside the connector's DNS lookup), never on the URL text alone, so a
 * hostname that resolves (or rebinds) to loopback or the cloud metadata address is refused before
 * any packet leaves the host.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import type { Config } from "../config.js";

/** Error code carried by a refused connection; the sender reports it as "blocked address". */
export const BLOCKED_ADDRESS_CODE = "ERR_WEBHOOK_BLOCKED_ADDRESS";

export class BlockedAddressError extends Error {
  readonly code = BLOCKED_ADDRESS_CODE;
  constructor(readonly host: string) {
    super(`callback host ${host} resolves only to blocked (private, loopback or reserved) addresses`);
    this.name = "BlockedAddressError";
  }
}

// IPv4 ranges that are not globally routable unicast (IANA special-purpose registry).
const BLOCKED_V4: readonly string[] = [
  "0.0.0.0/8", // "this network", includes the unspecified 0.0.0.0
  "10.0.0.0/8", // private
  "100.64.0.0/10", // CGNAT shared address space
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local, includes the cloud metadata address 169.254.169.254
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // documentation TEST-NET-1
  "192.88.99.0/24", // 6to4 relay anycast (deprecated)
  "192.168.0.0/16", // private
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation TEST-NET-2
  "203.0.113.0/24", // documentation TEST-NET-3
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, includes the broadcast 255.255.255.255
];

// IPv6: only 2000::/3 (global unicast) is ever allowed; within it these are refused as well.
const BLOCKED_V6_IN_GLOBAL: readonly string[] = [
  "2001::/23", // IETF protocol assignments, includes Teredo 2001::/32 (embeds an IPv4 address)
  "2001:db8::/32", // documentation
  "3fff::/20", // documentation (RFC 9637)
];

interface V4Range {
  base: number;
  mask: number;
}
interface V6Range {
  base: bigint;
  bits: number;
}

const V4_RANGES: readonly V4Range[] = BLOCKED_V4.map((cidr) => {
  const [ip, bits] = cidr.split("/") as [string, string];
  const mask = Number(bits) === 0 ? 0 : (0xffffffff << (32 - Number(bits))) >>> 0;
  return { base: ((parseV4(ip) as number) & mask) >>> 0, mask };
});
const V6_RANGES: readonly V6Range[] = BLOCKED_V6_IN_GLOBAL.map((cidr) => {
  const [ip, bits] = cidr.split("/") as [string, string];
  return { base: parseV6(ip) as bigint, bits: Number(bits) };
});

function parseV4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value >>> 0;
}

/** Parses an IPv6 literal (no brackets; a zone id is ignored) into a 128-bit integer. */
function parseV6(text: string): bigint | null {
  let input = text.split("%")[0] ?? "";
  // A trailing dotted quad (::ffff:127.0.0.1) becomes two hex groups.
  const dotted = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(input);
  if (dotted) {
    const v4 = parseV4(dotted[2] as string);
    if (v4 === null) return null;
    input = `${dotted[1]}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = input.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  return value;
}

function inV6(value: bigint, base: bigint, bits: number): boolean {
  const shift = BigInt(128 - bits);
  return value >> shift === base >> shift;
}

function blockedV4(value: number): boolean {
  return V4_RANGES.some((range) => (value & range.mask) >>> 0 === range.base);
}

function blockedV6(value: bigint): boolean {
  const low32 = Number(value & 0xffffffffn);
  // IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d (also covers :: and ::1) and NAT64
  // 64:ff9b::a.b.c.d are judged by the IPv4 address they carry.
  if (inV6(value, 0xffffn << 32n, 96) || inV6(value, 0n, 96) || inV6(value, 0x64ff9bn << 96n, 96)) {
    return blockedV4(low32);
  }
  // 6to4 2002:a.b.c.d::/48 carries an IPv4 address in bits 16-47.
  if (inV6(value, 0x2002n << 112n, 16)) return blockedV4(Number((value >> 80n) & 0xffffffffn));
  if (!inV6(value, 1n << 125n, 3)) return true; // outside 2000::/3: ULA, link-local, multicast, ...
  return V6_RANGES.some((range) => inV6(value, range.base, range.bits));
}

/**
 * True when the address (IPv4 or IPv6 literal, brackets allowed) is not a globally routable unicast
 * address. Anything that does not parse is treated as blocked.
 */
export function isBlockedAddress(address: string): boolean {
  const ip = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const family = isIP(ip.split("%")[0] ?? "");
  if (family === 4) return blockedV4(parseV4(ip) as number);
  if (family === 6) {
    const value = parseV6(ip);
    return value === null ? true : blockedV6(value);
  }
  return true;
}

/** The host of a URL without IPv6 brackets. */
function bareHost(url: URL): string {
  const host = url.hostname;
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/**
 * Creation-time check of a callback URL: an absolute http(s) URL and, while the SSRF guard is on,
 * not an IP literal (or a `localhost` name) of a blocked range. Returns the reason it is refused,
 * or null when it is acceptable; the caller picks the error code. Hostnames are checked again at
 * connect time against what they resolve to.
 */
export function assertCallbackUrlAllowed(
  config: Pick<Config, "webhookAllowPrivateNetworks">,
  url: string,
): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "callback_url must be an absolute http(s) URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return "callback_url must be an http(s) URL";
  }
  if (parsed.hostname === "") return "callback_url must have a host";
  // Credentials in a callback URL would be stored, shown and logged with it; and userinfo is the
  // classic disguise of a host (http://127.0.0.1:80@example.com/ goes to example.com).
  if (parsed.username !== "" || parsed.password !== "") {
    return "callback_url must not contain a user name or password";
  }
  if (config.webhookAllowPrivateNetworks) return null;
  // "localhost." and "a.localhost." are the same names as without the root dot.
  const host = bareHost(parsed).toLowerCase().replace(/\.+$/, "");
  if (isIP(host) !== 0 && isBlockedAddress(host)) {
    return "callback_url points to a private, loopback or reserved address";
  }
  if (host === "localhost" || host.endsWith(".localhost")) {
    return "callback_url points to a private, loopback or reserved address";
  }
  return null;
}

/** A dns.lookup-compatible resolver (tests inject one that maps a name to a chosen address). */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/**
 * A `lookup` for net.connect/tls.connect that resolves the name and drops every blocked address;
 * when nothing is left the connection fails with BlockedAddressError and no socket is opened.
 * Handles both the single-address and the `all: true` (happy eyeballs) calling conventions.
 */
export function guardedLookup(resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolver(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, "", 0);
        return;
      }
      const allowed = addresses.filter((entry) => !isBlockedAddress(entry.address));
      const first = allowed[0];
      if (!first) {
        callback(new BlockedAddressError(hostname), "", 0);
        return;
      }
      if (options.all) {
        (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, allowed);
      } else {
        callback(null, first.address, first.family);
      }
    });
  };
}
