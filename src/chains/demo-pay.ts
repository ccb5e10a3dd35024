/**
 * npm run demo:pay -- <order_id> [amount]
 *
 * Pays an order on its own chain's devnet the way a customer's wallet would: it reads the order's
 * chain, token, address and amount from the running service's public checkout endpoint
 * (PUBLIC_BASE_URL), then has that chain's devnet faucet (chain.ts, Faucet) sign and broadcast a
 * real token transfer. The chain's endpoint is its configured one, or the embedded devnet that
 * `npm start` announces in DATA_DIR (devnet.json for TRON, devnet-<chain>.json for an EVM chain).
 * Refused on any chain that is not a devnet.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { systemClock } from "../clock.js";
import { ConfigError, loadConfig, reloadConfig, type Env } from "../config.js";
import { createLogger } from "../logger.js";
import { createMetrics } from "../metrics/metrics.js";
import { formatAmount, parseAmount } from "../money.js";
import type { CheckoutStatus } from "../payments/checkout-status.js";
import { isChainId, isCurrency, type ChainId } from "./chain-types.js";
import { createChains } from "./create-chains.js";
import { embeddedEvmEnv, evmDevnetInfoFile, type EmbeddedEvmDevnetInfo } from "./evm/embedded-devnet.js";
import { DEVNET_INFO_FILE, type EmbeddedDevnetInfo } from "./tron/embedded-devnet.js";

const USAGE = "usage: npm run demo:pay -- <order_id> [amount]\n";

async function main(argv: string[]): Promise<number> {
  const [orderId, amountArg] = argv.filter((a) => a !== "--");
  if (!orderId || orderId === "--help") {
    process.stderr.write(USAGE);
    return orderId ? 0 : 1;
  }
  const base = loadConfig();
  const statusUrl = `${base.publicBaseUrl}/api/v1/checkout/${encodeURIComponent(orderId)}/status`;
  let order: CheckoutStatus;
  try {
    const res = await fetch(statusUrl);
    if (res.status === 404) {
      process.stderr.write(`order ${orderId} not found at ${base.publicBaseUrl}\n`);
      return 1;
    }
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    order = (await res.json()) as CheckoutStatus;
  } catch (error) {
    process.stderr.write(`cannot read ${statusUrl}: ${(error as Error).message} (is npm start running?)\n`);
    return 1;
  }
  const amount = parseAmount(amountArg ?? order.amount_expected);
  if (amount === null || amount <= 0n) {
    process.stderr.write(`invalid amount "${amountArg}": use a decimal like 10 or 9.99\n`);
    return 1;
  }
  if (!isChainId(order.chain) || !isCurrency(order.currency)) {
    process.stderr.write(`order ${orderId} is on ${order.chain} in ${order.currency}: not known here\n`);
    return 1;
  }

  // Only the order's chain, pointed at its embedded devnet when `npm start` runs one.
  const config = reloadConfig({ CHAINS: order.chain, ...embeddedEnv(base.dataDir, order.chain) });
  const log = createLogger({ level: "silent" });
  const { registry } = createChains(config, { log, metrics: createMetrics(), clock: systemClock });
  try {
    const chain = registry.get(order.chain);
    if (!chain?.faucet) {
      process.stderr.write(`demo:pay only pays on a devnet (${order.chain} is on ${order.network})\n`);
      return 1;
    }
    if (!chain.address.isValid(order.address)) {
      process.stderr.write(`order ${orderId} has no valid receive address on ${order.chain}\n`);
      return 1;
    }
    const { txHash } = await chain.faucet.pay(
      chain.address.normalise(order.address) ?? order.address,
      order.currency,
      amount,
    );
    process.stdout.write(
      [
        `paid ${formatAmount(amount)} ${order.currency} on ${order.chain} to ${order.address} (order ${order.id}, was ${order.status})`,
        `tx hash: ${txHash}`,
        `watch it: curl -s ${statusUrl}`,
        "",
      ].join("\n"),
    );
    return 0;
  } finally {
    await registry.close();
  }
}

/** The variables that point `chain` at the devnet `npm start` runs for it, if it runs one. */
function embeddedEnv(dataDir: string, chain: ChainId): Env {
  if (chain === "tron") {
    const tron = readInfo<EmbeddedDevnetInfo>(join(dataDir, DEVNET_INFO_FILE));
    return tron ? { TRON_NODE_URL: tron.url, USDT_CONTRACT: tron.usdt_contract } : {};
  }
  const evm = readInfo<EmbeddedEvmDevnetInfo>(join(dataDir, evmDevnetInfoFile(chain)));
  return evm ? embeddedEvmEnv(evm) : {};
}

function readInfo<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`demo:pay failed: ${message}\n`);
    process.exit(1);
  },
);
