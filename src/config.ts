/**
 * The only reader of process.env. Validates every variable of DESIGN.md section 2 and yields one
 * frozen Config. In development, missing secrets are generated once and kept in DATA_DIR with file
 * mode 0600 (config/dev-secrets.ts); in production a missing or weak required value stops start-up
 * naming the variable. The wallets' variables are checked together in config/wallets.ts; every
 * variable is read here and only here.
 */
import { resolve } from "node:path";
import { isValidAddress } from "@stablegate/tron/address";
import { devSecrets } from "./config/dev-secrets.js";
import {
  boolean,
  ConfigError,
  integer,
  oneOf,
  url,
  urlList,
  type ReadVariable,
} from "./config/env-values.js";
import { chainsConfig, sweepFamilies, type ChainsConfig } from "./config/evm.js";
import { trustProxy, type TrustProxy } from "./config/trust-proxy.js";
import { checkWallets } from "./config/wallets.js";
import { parseAmount } from "./money.js";

export { ConfigError };
export { checkSweeperSecrets } from "./config/wallets.js";

export const TRON_NETWORKS = ["mainnet", "nile", "shasta", "devnet"] as const;
export type TronNetwork = (typeof TRON_NETWORKS)[number];
export const SWEEP_MODES = ["burn", "delegate"] as const;
export type SweepMode = (typeof SWEEP_MODES)[number];
export const SWEEP_DELEGATE_FALLBACKS = ["burn", "wait"] as const;
export type SweepDelegateFallback = (typeof SWEEP_DELEGATE_FALLBACKS)[number];

export type { EvmChainConfig, EvmWalletConfig } from "./config/evm.js";

export interface Config extends ChainsConfig {
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
  /**
   * WORKER_LEASE_SECONDS: the lease of a claimed sweep, payout or webhook delivery, after which
   * another worker takes over a dead worker's item; undefined = each queue's own (sweeps 120 s,
   * payouts 60 s, webhooks 60 s). Webhook leases never go below 3 × the request timeout.
   */
  readonly workerLeaseMs: number | undefined;
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
  /** Which X-Forwarded-For entries to trust: none, a hop count, or proxy addresses (config/trust-proxy.ts). */
  readonly trustProxy: TrustProxy;
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
  const read: ReadVariable = (name) => {
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

  const wallets = checkWallets(
    {
      WALLET_MNEMONIC: read("WALLET_MNEMONIC"),
      WALLET_XPUB: read("WALLET_XPUB"),
      HOT_WALLET_PRIVATE_KEY: read("HOT_WALLET_PRIVATE_KEY"),
      HOT_WALLET_ADDRESS: read("HOT_WALLET_ADDRESS"),
      COLD_WALLET_ADDRESS: read("COLD_WALLET_ADDRESS"),
      SWEEP_ENABLED: read("SWEEP_ENABLED"),
    },
    dev,
    sweepFamilies(read),
  );
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
  const explorer = explorerConfig(read, tronNetwork, tronNodeUrl);

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
    ...wallets,
    ...chainsConfig(read, isProduction, wallets.walletMnemonic),
    sweepMode: oneOf(read("SWEEP_MODE") ?? "burn", "SWEEP_MODE", SWEEP_MODES),
    sweepDelegateFallback: oneOf(
      read("SWEEP_DELEGATE_FALLBACK") ?? "burn",
      "SWEEP_DELEGATE_FALLBACK",
      SWEEP_DELEGATE_FALLBACKS,
    ),
    hotWalletAlertTrx: integer(read("HOT_WALLET_ALERT_TRX"), "HOT_WALLET_ALERT_TRX", 100, 0, 1e12),
    sweepMinUsdt,
    workerLeaseMs:
      read("WORKER_LEASE_SECONDS") === undefined
        ? undefined
        : integer(read("WORKER_LEASE_SECONDS"), "WORKER_LEASE_SECONDS", 0, 5, 3600) * 1000,
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
    trustProxy: trustProxy(read("TRUST_PROXY"), isProduction),
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

/** Explorer links are shown to operators and payers: never with the node URL's credentials. */
function explorerConfig(
  read: ReadVariable,
  tronNetwork: TronNetwork,
  tronNodeUrl: string | undefined,
): Config["explorer"] {
  const publicNodeUrl = withoutCredentials(tronNodeUrl);
  const chainBase = tronNetwork === "devnet" ? publicNodeUrl : EXPLORERS[tronNetwork];
  return {
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
}

function alertConfig(read: ReadVariable): Config["alerts"] {
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

/** The URL without user info, query or fragment (where API keys may travel). */
export function withoutCredentials(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const url = new URL(raw);
  return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/+$/, "");
}

function displayHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "localhost";
  return host.includes(":") ? `[${host}]` : host;
}
