/**
 * The only reader of process.env. Validates every variable of DESIGN.md section 2 and yields one
 * frozen Config. In development, missing secrets are generated once and kept in DATA_DIR with file
 * mode 0600; in production a missing or weak required value stops start-up naming the variable.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { HDKey } from "@scure/bip32";
import { generateMnemonic, validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { addressFromPrivateKey, isValidAddress } from "@stablegate/tron/address";
import { mnemonicToAccountXpub } from "@stablegate/tron/hd";
import { parseAmount } from "./money.js";

export const TRON_NETWORKS = ["mainnet", "nile", "shasta", "devnet"] as const;
export type TronNetwork = (typeof TRON_NETWORKS)[number];
export const SWEEP_MODES = ["burn", "delegate"] as const;
export type SweepMode = (typeof SWEEP_MODES)[number];
export const SWEEP_DELEGATE_FALLBACKS = ["burn", "wait"] as const;
export type SweepDelegateFallback = (typeof SWEEP_DELEGATE_FALLBACKS)[number];

export interface Config {
  readonly nodeEnv: string;
  readonly isProduction: boolean;
  readonly port: number;
  readonly host: string;
  readonly publicBaseUrl: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly adminPassword: string;
  /** True when the password came from DATA_DIR (generated), so start-up may print it. */
  readonly adminPasswordGenerated: boolean;
  readonly sessionSecret: string;
  /** ADMIN_REQUIRE_2FA: every operator, the owner included, must enrol TOTP (DESIGN.md 12). */
  readonly adminRequire2fa: boolean;
  readonly apiKeyPepper: string;
  readonly tronNetwork: TronNetwork;
  /** undefined on devnet = start the devnet in-process. The first of tronNodeUrls. */
  readonly tronNodeUrl: string | undefined;
  /** TRON_NODE_URL split at commas: the preferred node first, then the fallbacks (DESIGN 11). */
  readonly tronNodeUrls: readonly string[];
  readonly tronApiKey: string | undefined;
  /** undefined on devnet = the in-process devnet's own contract. */
  readonly usdtContract: string | undefined;
  readonly confirmations: number;
  readonly orderTtlSeconds: number;
  readonly walletXpub: string;
  readonly walletMnemonic: string | undefined;
  readonly hotWalletPrivateKey: string | undefined;
  /** HOT_WALLET_ADDRESS, or the key's address; the same on every role. */
  readonly hotWalletAddress: string | undefined;
  readonly coldWalletAddress: string | undefined;
  /** Describes the deployment: every role reports it the same, whether or not it holds the keys. */
  readonly sweepEnabled: boolean;
  readonly sweepMode: SweepMode;
  /** delegate mode, when the stake's available energy is short: burn TRX now, or wait for it */
  readonly sweepDelegateFallback: SweepDelegateFallback;
  readonly hotWalletAlertTrx: number;
  readonly sweepMinUsdt: bigint;
  /** DESIGN.md 14: refunds and payouts at or below it are approved at creation (0 = never). */
  readonly payoutAutoApproveUsdt: bigint;
  /** Per merchant per UTC day, beyond which nothing is auto-approved; undefined = unlimited. */
  readonly payoutDailyLimitUsdt: bigint | undefined;
  /** The approver must not be the operator who created the refund or payout. */
  readonly payoutFourEyes: boolean;
  /** Static-address deposits below it are flagged below_minimum (DESIGN.md 15); micro-USDT. */
  readonly depositMinUsdt: bigint;
  readonly webhookAllowPrivateNetworks: boolean;
  readonly logLevel: string;
  /** Bearer token of GET /metrics; undefined = open in development, 404 in production. */
  readonly metricsToken: string | undefined;
  /** Operator alerts (DESIGN.md 2 and 11): channels and thresholds. */
  readonly alerts: {
    readonly webhookUrl: string | undefined;
    readonly webhookSecret: string | undefined;
    readonly telegramBotToken: string | undefined;
    readonly telegramChatId: string | undefined;
    readonly telegramApiUrl: string;
    readonly scannerLagBlocks: number;
    readonly nodeDownSeconds: number;
    readonly poolMinFree: number;
  };
  /** Fastify trustProxy: false, true, or a comma-separated list of trusted proxy addresses/CIDRs. */
  readonly trustProxy: boolean | string;
  readonly explorer: {
    readonly chainBaseUrl: string | undefined;
    readonly txBaseUrl: string | undefined;
    readonly addressBaseUrl: string | undefined;
  };
  readonly poolMinFree: number;
  readonly addressQuarantineSeconds: number;
  readonly merchantRateLimitPerMinute: number;
  readonly devnet: { readonly blockTimeMs: number; readonly solidifyAfter: number };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = "ConfigError";
  }
}

export type Env = Record<string, string | undefined>;

const DEFAULT_USDT: Record<Exclude<TronNetwork, "devnet">, string> = {
  mainnet: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  nile: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf",
  shasta: "TG3XXyExBkPp9nzdajDZsozEu4BkaSJozs",
};

const DEFAULT_NODE_URL: Record<Exclude<TronNetwork, "devnet">, string> = {
  mainnet: "https://api.trongrid.io",
  nile: "https://nile.trongrid.io",
  shasta: "https://api.shasta.trongrid.io",
};

const EXPLORERS: Record<Exclude<TronNetwork, "devnet">, string> = {
  mainnet: "https://tronscan.org",
  nile: "https://nile.tronscan.org",
  shasta: "https://shasta.tronscan.org",
};

/** Secrets generated for development and kept in DATA_DIR/secrets.json (mode 0600). */
interface DevSecrets {
  admin_password: string;
  session_secret: string;
  api_key_pepper: string;
  wallet_mnemonic: string;
  hot_wallet_private_key: string;
  cold_wallet_address: string;
}

/**
 * The configuration again with some variables replaced, e.g. TRON_NODE_URL and USDT_CONTRACT once the
 * embedded devnet listens. `env` is what the first config was loaded from (default process.env).
 */
export function reloadConfig(overrides: Env, env: Env = process.env): Config {
  return loadConfig({ ...env, ...overrides });
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = env.NODE_ENV ?? "development";
  const isProduction = nodeEnv === "production";
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };

  const host = read("HOST") ?? (isProduction ? "0.0.0.0" : "127.0.0.1");
  const port = integer(read("PORT"), "PORT", 3000, 0, 65535);
  const dataDir = resolve(read("DATA_DIR") ?? "./data");
  const tronNetwork = oneOf(
    read("TRON_NETWORK") ?? (isProduction ? undefined : "devnet"),
    "TRON_NETWORK",
    TRON_NETWORKS,
  );
  if (isProduction && tronNetwork === "devnet") {
    throw new ConfigError("TRON_NETWORK", "devnet is refused in production; use mainnet, nile or shasta");
  }

  const dev = isProduction ? undefined : devSecrets(dataDir, read);
  const required = (name: string, devValue: string | undefined): string => {
    const value = read(name) ?? devValue;
    if (value === undefined) throw new ConfigError(name, "is required in production");
    return value;
  };

  const adminPassword = required("ADMIN_PASSWORD", dev?.admin_password);
  if (isProduction && adminPassword.length < 12) {
    throw new ConfigError("ADMIN_PASSWORD", "is too weak: use at least 12 characters");
  }
  const sessionSecret = required("SESSION_SECRET", dev?.session_secret);
  const apiKeyPepper = required("API_KEY_PEPPER", dev?.api_key_pepper);
  for (const [name, value] of [
    ["SESSION_SECRET", sessionSecret],
    ["API_KEY_PEPPER", apiKeyPepper],
  ] as const) {
    if (Buffer.byteLength(value) < 32) throw new ConfigError(name, "must be at least 32 bytes");
  }

  const walletMnemonic = read("WALLET_MNEMONIC") ?? (read("WALLET_XPUB") ? undefined : dev?.wallet_mnemonic);
  if (walletMnemonic !== undefined && !validateMnemonic(walletMnemonic, wordlist)) {
    throw new ConfigError("WALLET_MNEMONIC", "is not a valid BIP39 English mnemonic");
  }
  const walletXpub =
    read("WALLET_XPUB") ?? (walletMnemonic ? mnemonicToAccountXpub(walletMnemonic) : undefined);
  if (walletXpub === undefined)
    throw new ConfigError("WALLET_XPUB", "is required in production (or WALLET_MNEMONIC)");
  if (!isAccountXpub(walletXpub)) {
    throw new ConfigError("WALLET_XPUB", "is not an account-level xpub (m/44'/195'/0')");
  }
  // Sweeps sign with keys from the mnemonic: an xpub of another seed would show addresses whose funds
  // the service can never move.
  if (read("WALLET_XPUB") && walletMnemonic && mnemonicToAccountXpub(walletMnemonic) !== walletXpub) {
    throw new ConfigError("WALLET_XPUB", "does not belong to WALLET_MNEMONIC");
  }

  const givenHotAddress = read("HOT_WALLET_ADDRESS");
  if (givenHotAddress !== undefined && !isValidAddress(givenHotAddress)) {
    throw new ConfigError("HOT_WALLET_ADDRESS", "is not a valid TRON address");
  }
  const hotWalletPrivateKey =
    read("HOT_WALLET_PRIVATE_KEY") ?? (givenHotAddress ? undefined : dev?.hot_wallet_private_key);
  if (hotWalletPrivateKey !== undefined && !/^(0x)?[0-9a-fA-F]{64}$/.test(hotWalletPrivateKey)) {
    throw new ConfigError("HOT_WALLET_PRIVATE_KEY", "must be 32 bytes of hex");
  }
  let keyAddress: string | undefined;
  try {
    keyAddress = hotWalletPrivateKey
      ? addressFromPrivateKey(hotWalletPrivateKey.replace(/^0x/, ""))
      : undefined;
  } catch {
    throw new ConfigError("HOT_WALLET_PRIVATE_KEY", "is not a valid secp256k1 private key");
  }
  // The api tier shows and alerts on HOT_WALLET_ADDRESS while the workers pay from the key: a
  // mismatch would watch one wallet and spend from another.
  if (givenHotAddress !== undefined && keyAddress !== undefined && givenHotAddress !== keyAddress) {
    throw new ConfigError(
      "HOT_WALLET_ADDRESS",
      `is ${givenHotAddress} but HOT_WALLET_PRIVATE_KEY belongs to ${keyAddress}; they must name the same wallet`,
    );
  }
  const hotWalletAddress = givenHotAddress ?? keyAddress;
  const coldWalletAddress = read("COLD_WALLET_ADDRESS") ?? dev?.cold_wallet_address;
  if (coldWalletAddress !== undefined && !isValidAddress(coldWalletAddress)) {
    throw new ConfigError("COLD_WALLET_ADDRESS", "is not a valid TRON address");
  }
  const bothWallets = hotWalletAddress !== undefined && coldWalletAddress !== undefined;
  const sweepEnabled = boolean(read("SWEEP_ENABLED"), "SWEEP_ENABLED", bothWallets);
  if (sweepEnabled && !bothWallets) {
    throw new ConfigError(
      "SWEEP_ENABLED",
      "needs COLD_WALLET_ADDRESS and HOT_WALLET_ADDRESS (or HOT_WALLET_PRIVATE_KEY)",
    );
  }
  const sweepMinUsdt = parseAmount(read("SWEEP_MIN_USDT") ?? "1");
  if (sweepMinUsdt === null) throw new ConfigError("SWEEP_MIN_USDT", "must be a positive USDT amount");
  const autoApproveRaw = read("PAYOUT_AUTO_APPROVE_USDT") ?? "0";
  const payoutAutoApproveUsdt = /^0+(\.0+)?$/.test(autoApproveRaw) ? 0n : parseAmount(autoApproveRaw);
  if (payoutAutoApproveUsdt === null) {
    throw new ConfigError("PAYOUT_AUTO_APPROVE_USDT", "must be 0 or a positive USDT amount");
  }
  const dailyLimitRaw = read("PAYOUT_DAILY_LIMIT_USDT");
  const payoutDailyLimitUsdt = dailyLimitRaw === undefined ? undefined : parseAmount(dailyLimitRaw);
  if (payoutDailyLimitUsdt === null) {
    throw new ConfigError("PAYOUT_DAILY_LIMIT_USDT", "must be a positive USDT amount");
  }
  const depositMinUsdt = parseAmount(read("DEPOSIT_MIN_USDT") ?? "1");
  if (depositMinUsdt === null)
    throw new ConfigError("DEPOSIT_MIN_USDT", "must be a USDT amount with at most 6 decimals");

  const usdtContract =
    read("USDT_CONTRACT") ?? (tronNetwork === "devnet" ? undefined : DEFAULT_USDT[tronNetwork]);
  if (usdtContract !== undefined && !isValidAddress(usdtContract)) {
    throw new ConfigError("USDT_CONTRACT", "is not a valid TRON address");
  }
  const tronNodeUrls =
    urlList(read("TRON_NODE_URL"), "TRON_NODE_URL") ??
    (tronNetwork === "devnet" ? [] : [DEFAULT_NODE_URL[tronNetwork]]);
  const tronNodeUrl = tronNodeUrls[0];
  // Explorer links are shown to operators and payers: never with the node URL's credentials.
  const publicNodeUrl = withoutCredentials(tronNodeUrl);
  const chainBase = tronNetwork === "devnet" ? publicNodeUrl : EXPLORERS[tronNetwork];
  const explorer = {
    chainBaseUrl: url(read("EXPLORER_BASE_URL"), "EXPLORER_BASE_URL") ?? chainBase,
    txBaseUrl:
      url(read("TX_EXPLORER_BASE_URL"), "TX_EXPLORER_BASE_URL") ??
      (tronNetwork === "devnet"
        ? publicNodeUrl && `${publicNodeUrl}/wallet/gettransactionbyid?value=`
        : `${chainBase}/#/transaction/`),
    addressBaseUrl:
      url(read("ADDRESS_EXPLORER_BASE_URL"), "ADDRESS_EXPLORER_BASE_URL") ??
      (tronNetwork === "devnet"
        ? publicNodeUrl && `${publicNodeUrl}/wallet/getaccount?visible=true&address=`
        : `${chainBase}/#/address/`),
  };

  const config: Config = {
    nodeEnv,
    isProduction,
    port,
    host,
    publicBaseUrl: (
      url(read("PUBLIC_BASE_URL"), "PUBLIC_BASE_URL") ?? `http://${displayHost(host)}:${port}`
    ).replace(/\/+$/, ""),
    databaseUrl: read("DATABASE_URL"),
    dataDir,
    adminPassword,
    adminPasswordGenerated: read("ADMIN_PASSWORD") === undefined,
    sessionSecret,
    adminRequire2fa: boolean(read("ADMIN_REQUIRE_2FA"), "ADMIN_REQUIRE_2FA", false),
    apiKeyPepper,
    tronNetwork,
    tronNodeUrl,
    tronNodeUrls: Object.freeze(tronNodeUrls),
    tronApiKey: read("TRON_API_KEY"),
    usdtContract,
    confirmations: integer(read("CONFIRMATIONS"), "CONFIRMATIONS", 19, 1, 1000),
    orderTtlSeconds: integer(read("ORDER_TTL_SECONDS"), "ORDER_TTL_SECONDS", 1800, 60, 86400),
    walletXpub,
    walletMnemonic,
    hotWalletPrivateKey: hotWalletPrivateKey?.replace(/^0x/, ""),
    hotWalletAddress,
    coldWalletAddress,
    sweepEnabled,
    sweepMode: oneOf(read("SWEEP_MODE") ?? "burn", "SWEEP_MODE", SWEEP_MODES),
    sweepDelegateFallback: oneOf(
      read("SWEEP_DELEGATE_FALLBACK") ?? "burn",
      "SWEEP_DELEGATE_FALLBACK",
      SWEEP_DELEGATE_FALLBACKS,
    ),
    hotWalletAlertTrx: integer(read("HOT_WALLET_ALERT_TRX"), "HOT_WALLET_ALERT_TRX", 100, 0, 1e12),
    sweepMinUsdt,
    payoutAutoApproveUsdt,
    payoutDailyLimitUsdt,
    payoutFourEyes: boolean(read("PAYOUT_FOUR_EYES"), "PAYOUT_FOUR_EYES", true),
    depositMinUsdt,
    webhookAllowPrivateNetworks: boolean(
      read("WEBHOOK_ALLOW_PRIVATE_NETWORKS"),
      "WEBHOOK_ALLOW_PRIVATE_NETWORKS",
      !isProduction,
    ),
    logLevel: oneOf(read("LOG_LEVEL") ?? "info", "LOG_LEVEL", [
      "fatal",
      "error",
      "warn",
      "info",
      "debug",
      "trace",
      "silent",
    ] as const),
    metricsToken: read("METRICS_TOKEN"),
    alerts: alertConfig(read),
    trustProxy: trustProxy(read("TRUST_PROXY")),
    explorer,
    poolMinFree: integer(read("POOL_MIN_FREE"), "POOL_MIN_FREE", 200, 0, 100_000),
    addressQuarantineSeconds: integer(
      read("ADDRESS_QUARANTINE_SECONDS"),
      "ADDRESS_QUARANTINE_SECONDS",
      72 * 3600,
      0,
      365 * 86400,
    ),
    merchantRateLimitPerMinute: integer(
      read("MERCHANT_RATE_LIMIT_PER_MINUTE"),
      "MERCHANT_RATE_LIMIT_PER_MINUTE",
      600,
      1,
      1_000_000,
    ),
    devnet: {
      blockTimeMs: integer(read("DEVNET_BLOCK_TIME_MS"), "DEVNET_BLOCK_TIME_MS", 1000, 0, 60_000),
      solidifyAfter: integer(read("DEVNET_SOLIDIFY_AFTER"), "DEVNET_SOLIDIFY_AFTER", 19, 0, 1000),
    },
  };
  return Object.freeze(config);
}

/**
 * Refuses to start a process that runs the sweeper without what signing needs. Only such processes
 * (roles worker and all) call it: an api process reports and accepts sweeps with the public values.
 */
export function checkSweeperSecrets(config: Config): void {
  if (!config.sweepEnabled) return;
  if (config.walletMnemonic === undefined) {
    throw new ConfigError(
      "WALLET_MNEMONIC",
      "is required on worker processes while SWEEP_ENABLED is true (they sign sweeps)",
    );
  }
  if (config.hotWalletPrivateKey === undefined) {
    throw new ConfigError(
      "HOT_WALLET_PRIVATE_KEY",
      "is required on worker processes while SWEEP_ENABLED is true (it pays the sweep fees)",
    );
  }
}

/** The variables that replace each generated secret (WALLET_XPUB makes the mnemonic unnecessary). */
const DEV_SECRET_ENV: Record<keyof DevSecrets, readonly string[]> = {
  admin_password: ["ADMIN_PASSWORD"],
  session_secret: ["SESSION_SECRET"],
  api_key_pepper: ["API_KEY_PEPPER"],
  wallet_mnemonic: ["WALLET_MNEMONIC", "WALLET_XPUB"],
  hot_wallet_private_key: ["HOT_WALLET_PRIVATE_KEY", "HOT_WALLET_ADDRESS"],
  cold_wallet_address: ["COLD_WALLET_ADDRESS"],
};

/** Reads DATA_DIR/secrets.json, generating and persisting whatever the environment does not give. */
function devSecrets(dataDir: string, read: (name: string) => string | undefined): DevSecrets {
  const file = join(dataDir, "secrets.json");
  let stored: Partial<DevSecrets> = {};
  if (existsSync(file)) {
    try {
      stored = JSON.parse(readFileSync(file, "utf8")) as Partial<DevSecrets>;
    } catch {
      throw new ConfigError("DATA_DIR", `${file} is not valid JSON; fix or delete it`);
    }
  }
  const coldKey = randomBytes(32);
  const generated: DevSecrets = {
    admin_password: stored.admin_password ?? randomBytes(12).toString("base64url"),
    session_secret: stored.session_secret ?? randomBytes(32).toString("base64url"),
    api_key_pepper: stored.api_key_pepper ?? randomBytes(32).toString("base64url"),
    wallet_mnemonic: stored.wallet_mnemonic ?? generateMnemonic(wordlist, 256),
    hot_wallet_private_key: stored.hot_wallet_private_key ?? randomBytes(32).toString("hex"),
    cold_wallet_address: stored.cold_wallet_address ?? addressFromPrivateKey(coldKey),
  };
  coldKey.fill(0);
  // Persist whenever a freshly generated value is actually used (no variable overrides it), so the
  // next start gets the same one: a wallet mnemonic that changed on restart would strand deposits.
  const usedGenerated = (Object.keys(generated) as (keyof DevSecrets)[]).some(
    (key) => stored[key] === undefined && DEV_SECRET_ENV[key].every((name) => read(name) === undefined),
  );
  if (usedGenerated) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(generated, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  }
  return generated;
}

/** A well-formed xpub (checksum included) at depth 3, the account level of BIP44. */
function isAccountXpub(value: string): boolean {
  if (!/^xpub[1-9A-HJ-NP-Za-km-z]{100,112}$/.test(value)) return false;
  try {
    return HDKey.fromExtendedKey(value).depth === 3;
  } catch {
    return false;
  }
}

function integer(raw: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}`);
  return value;
}

function boolean(raw: string | undefined, name: string, fallback: boolean): boolean {
  if (raw === undefined) return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(raw: string | undefined, name: string, allowed: readonly T[]): T {
  if (raw === undefined) throw new ConfigError(name, `is required; one of ${allowed.join(", ")}`);
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}

function url(raw: string | undefined, name: string): string | undefined {
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, "must be an absolute http(s) URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigError(name, "must be an http(s) URL");
  }
  return raw.replace(/\/+$/, "");
}

function alertConfig(read: (name: string) => string | undefined): Config["alerts"] {
  const telegramBotToken = read("TELEGRAM_BOT_TOKEN");
  const telegramChatId = read("TELEGRAM_CHAT_ID");
  if ((telegramBotToken === undefined) !== (telegramChatId === undefined)) {
    const missing = telegramBotToken === undefined ? "TELEGRAM_BOT_TOKEN" : "TELEGRAM_CHAT_ID";
    throw new ConfigError(missing, "is required when the other Telegram variable is set");
  }
  return {
    webhookUrl: url(read("ALERT_WEBHOOK_URL"), "ALERT_WEBHOOK_URL"),
    webhookSecret: read("ALERT_WEBHOOK_SECRET"),
    telegramBotToken,
    telegramChatId,
    telegramApiUrl: url(read("TELEGRAM_API_URL"), "TELEGRAM_API_URL") ?? "https://api.telegram.org",
    scannerLagBlocks: integer(read("ALERT_SCANNER_LAG_BLOCKS"), "ALERT_SCANNER_LAG_BLOCKS", 40, 1, 1_000_000),
    nodeDownSeconds: integer(read("ALERT_NODE_DOWN_SECONDS"), "ALERT_NODE_DOWN_SECONDS", 120, 1, 86_400),
    poolMinFree: integer(read("ALERT_POOL_MIN_FREE"), "ALERT_POOL_MIN_FREE", 100, 0, 1_000_000),
  };
}

/** A comma-separated list of http(s) URLs (at least one, no duplicates). */
function urlList(raw: string | undefined, name: string): string[] | undefined {
  if (raw === undefined) return undefined;
  const list = raw.split(",").map((part) => part.trim());
  if (list.some((part) => part === ""))
    throw new ConfigError(name, "has an empty entry in its comma-separated list");
  const urls = list.map((part) => url(part, name) as string);
  if (new Set(urls).size !== urls.length) throw new ConfigError(name, "lists the same URL twice");
  return urls;
}

/** The URL without user info, query or fragment (where API keys may travel). */
export function withoutCredentials(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const url = new URL(raw);
  return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, "");
}

function trustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || /^(0|false|no|off)$/i.test(raw)) return false;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  return raw;
}

function displayHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "localhost";
  return host.includes(":") ? `[${host}]` : host;
}
