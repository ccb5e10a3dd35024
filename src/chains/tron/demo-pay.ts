/**
 * npm run demo:pay -- <order_id> [amount]
 *
 * Pays an order on the devnet the way a customer's wallet would: it reads the order's address and
 * amount from the running service's public checkout endpoint (PUBLIC_BASE_URL), builds a USDT
 * transfer with our TRON toolkit, signs it with the devnet faucet's documented key and broadcasts
 * it. The node is TRON_NODE_URL, or the embedded devnet that `npm start` announces in
 * DATA_DIR/devnet.json. Refused on any network other than the devnet.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../config.js";
import { formatAmount, parseAmount } from "../../money.js";
import { isValidAddress } from "@stablegate/tron/address";
import { createNodeClient } from "@stablegate/tron/node-client";
import type { CheckoutStatus } from "../../payments/checkout-status.js";
import { DEVNET_INFO_FILE, type EmbeddedDevnetInfo } from "./embedded-devnet.js";
import { sendFaucetUsdt } from "./faucet-transfer.js";

const USAGE = "usage: npm run demo:pay -- <order_id> [amount]\n";

async function main(argv: string[]): Promise<number> {
  const [orderId, amountArg] = argv.filter((a) => a !== "--");
  if (!orderId || orderId === "--help") {
    process.stderr.write(USAGE);
    return orderId ? 0 : 1;
  }
  const config = loadConfig();
  if (config.tronNetwork !== "devnet") {
    process.stderr.write(`demo:pay only pays on the devnet (TRON_NETWORK is ${config.tronNetwork})\n`);
    return 1;
  }
  const embedded = readEmbeddedDevnet(config.dataDir);
  const nodeUrl = config.tronNodeUrl ?? embedded?.url;
  const usdt = config.usdtContract ?? embedded?.usdt_contract;
  if (!nodeUrl || !usdt) {
    process.stderr.write("no devnet found: start the service first (npm start), or set TRON_NODE_URL\n");
    return 1;
  }

  const statusUrl = `${config.publicBaseUrl}/api/v1/checkout/${encodeURIComponent(orderId)}/status`;
  let order: CheckoutStatus;
  try {
    const res = await fetch(statusUrl);
    if (res.status === 404) {
      process.stderr.write(`order ${orderId} not found at ${config.publicBaseUrl}\n`);
      return 1;
    }
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    order = (await res.json()) as CheckoutStatus;
  } catch (error) {
    process.stderr.write(`cannot read ${statusUrl}: ${(error as Error).message} (is npm start running?)\n`);
    return 1;
  }
  if (!isValidAddress(order.address)) {
    process.stderr.write(`order ${orderId} has no valid receive address\n`);
    return 1;
  }
  const amount = parseAmount(amountArg ?? order.amount_expected);
  if (amount === null || amount <= 0n) {
    process.stderr.write(`invalid amount "${amountArg}": use a decimal like 10 or 9.99\n`);
    return 1;
  }

  const client = createNodeClient({ baseUrl: nodeUrl, apiKey: config.tronApiKey });
  try {
    const { txHash } = await sendFaucetUsdt(client, { usdtContract: usdt, to: order.address, amount });
    process.stdout.write(
      [
        `paid ${formatAmount(amount)} USDT to ${order.address} (order ${order.id}, was ${order.status})`,
        `tx hash: ${txHash}`,
        `watch it: curl -s ${statusUrl}`,
        "",
      ].join("\n"),
    );
    return 0;
  } finally {
    await client.close();
  }
}

function readEmbeddedDevnet(dataDir: string): EmbeddedDevnetInfo | undefined {
  const file = join(dataDir, DEVNET_INFO_FILE);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as EmbeddedDevnetInfo;
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
