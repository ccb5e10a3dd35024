/**
 * One deployment taking TRON and Ethereum at once: a TRON USDT order paid on the TRON devnet
 * (TronWeb over HTTP) and an Ethereum USDC order paid on Anvil, each chain scanned by its own
 * scanner, both confirmed only at their chain's finality, and their signed outcome webhooks
 * delivered to a real HTTP receiver, each carrying its `chain`. PostgreSQL when TEST_DATABASE_URL
 * is set, else PGlite.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../src/index.js";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import { queryRows } from "../../src/db/query-rows.js";
import { createOrder } from "../../src/payments/create-order.js";
import { fillAddressPools } from "../../src/wallet/fill-address-pool.js";
import { createWebhookDeliverer, type WebhookDeliverer } from "../../src/webhooks/deliver-webhooks.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { poll } from "../helpers/poll.js";
import { FAST_RETRY, startChainTest, type ChainTest } from "../chain/helpers.js";
import { startReceiver, type Receiver } from "../webhooks/fixtures.js";

const eth = evmDevnetForFile({ chainId: 31337 });
let t: ChainTest;
let ethScanner: Scanner;
let receiver: Receiver;
let deliverer: WebhookDeliverer;
const SECRET = "whsec-chain-test";

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startChainTest({
    env: {
      CHAINS: "tron,ethereum",
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      ...evmChainEnv("ethereum", eth()),
    },
  });
  await fillAddressPools(t.ctx);
  const ethereum = t.ctx.chains.get("ethereum");
  if (!ethereum) throw new Error("ethereum is not enabled");
  ethScanner = createScanner(t.ctx, { chain: ethereum, retry: FAST_RETRY, maxIdleMs: 20 });
  await t.scanner.sync();
  await ethScanner.sync();
  deliverer = createWebhookDeliverer(t.ctx, { timeoutMs: 5_000 });
}, 60_000);
afterAll(async () => {
  await deliverer?.close();
  await receiver?.close();
  await t?.close();
});

async function status(id: string) {
  const [row] = await queryRows<{ status: string }>(
    t.ctx.db,
    sql`SELECT status FROM orders WHERE id = ${id}::uuid`,
  );
  return row?.status;
}

describe("TRON and Ethereum in one deployment", () => {
  it("confirms a TRON order and an Ethereum order, each at its chain's finality, with signed webhooks naming the chain", async () => {
    const input = (externalId: string, chain: string, currency: "USDT" | "USDC") => ({
      externalId,
      amount: "12.5",
      currency,
      chain,
      callbackUrl: receiver.url,
    });
    const tron = (await createOrder(t.ctx, { id: t.merchantId }, input("both-tron", "tron", "USDT"))).order;
    const ethOrder = (await createOrder(t.ctx, { id: t.merchantId }, input("both-eth", "ethereum", "USDC")))
      .order;
    expect(tron.address).toMatch(/^T/);
    expect(ethOrder.address).toMatch(/^0x/i);

    await t.pay(tron.address, 12_500_000n);
    t.mine(1);
    await sendToken(eth(), eth().usdcContract, ethOrder.address, 12_500_000n);
    await eth().mine(1);
    await t.scanner.sync();
    await ethScanner.sync();
    expect(await status(tron.id)).toBe("detected");
    expect(await status(ethOrder.id)).toBe("detected");

    await t.finalize();
    expect(await status(tron.id)).toBe("confirmed");
    // The Ethereum payment is not final yet: its finalized tag trails by 4 blocks.
    expect(await status(ethOrder.id)).toBe("detected");
    await eth().mine(eth().finalityDepth + 1);
    await ethScanner.sync();
    expect(await status(ethOrder.id)).toBe("confirmed");

    await poll("both outcome webhooks delivered", async () => {
      await deliverer.deliverDue(10);
      return receiver.requests.length >= 2;
    });
    const bodies = receiver.requests.map((r) => {
      const verified = verifyWebhook(r.body, r.headers, SECRET, { toleranceSeconds: 0 });
      expect(verified.ok, JSON.stringify(verified)).toBe(true);
      return JSON.parse(r.body.toString("utf8")) as Record<string, unknown>;
    });
    const byOrder = new Map(bodies.map((b) => [b.order_id, b]));
    expect(byOrder.get(tron.id)).toMatchObject({
      event: "payment.confirmed",
      chain: "tron",
      currency: "USDT",
      amount_received: "12.500000",
    });
    expect(byOrder.get(ethOrder.id)).toMatchObject({
      event: "payment.confirmed",
      chain: "ethereum",
      currency: "USDC",
      amount_received: "12.500000",
    });
  });
});
