/**
 * Static deposit addresses on EVM chains (DESIGN.md 15 and 16), on two Anvil devnets over HTTP
 * (ethereum, chain id 31337, with the 6-decimal USDT and USDC; bsc, chain id 56, whose USDT is the
 * 18-decimal token) and PostgreSQL (PGlite unless TEST_DATABASE_URL is set), one scanner per chain
 * with outcomes only at the `finalized` tag (4 blocks behind the head). One customer gets one EVM
 * address on m/44'/60'/0'/1/i whichever EVM chain it asks for; paid on both chains it has two
 * deposits, each credited and reported once (deposit.confirmed with its chain and exact amount) and
 * only after its chain's finality; a deposit a reorganisation removes before finality is reverted
 * and never reported confirmed.
 */
import { sql } from "drizzle-orm";
import { HDNodeWallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EvmDevnet } from "@stablegate/devnet";
import { verifyWebhook } from "@stablegate/sdk/verify-webhook";
import type { DepositWebhookPayload } from "@stablegate/sdk/webhook-payload";
import type { ChainId } from "../../src/chains/chain-types.js";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import { queryRows } from "../../src/db/query-rows.js";
import { createWebhookDeliverer } from "../../src/webhooks/deliver-webhooks.js";
import { staticSweepsDue } from "../../src/deposits/sweep-static-addresses.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { TEST_MNEMONIC } from "../helpers/config.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { FAST_RETRY } from "../chain/helpers.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";
import { startReceiver, type Receiver } from "./helpers.js";

const eth = evmDevnetForFile({ chainId: 31337 });
const bsc = evmDevnetForFile({ chainId: 56 });
const SECRET = "whsec-test-secret";
let t: TestApp;
let shop: TestMerchant;
let receiver: Receiver;
const scanners = new Map<ChainId, Scanner>();

function post(body: Record<string, unknown>) {
  return t.app.inject({
    method: "POST",
    url: "/api/v1/deposit-addresses",
    headers: { "x-api-key": shop.apiKey, "content-type": "application/json" },
    payload: JSON.stringify(body),
  });
}

async function sync(chain: ChainId) {
  await (scanners.get(chain) as Scanner).sync();
}

/** Mines past the finality depth on `devnet` and scans its chain. */
async function finalise(devnet: EvmDevnet, chain: ChainId) {
  await devnet.mine(devnet.finalityDepth + 1);
  await sync(chain);
}

async function pay(devnet: EvmDevnet, token: string, to: string, units: bigint): Promise<string> {
  const hash = await sendToken(devnet, token, to, units);
  await devnet.mine(1);
  return hash;
}

async function depositRows(depositAddressId: string) {
  return queryRows<{ chain: string; currency: string; amount: string; status: string; tx_hash: string }>(
    t.ctx.db,
    sql`SELECT chain, currency, amount::text AS amount, status, tx_hash FROM deposits
        WHERE deposit_address_id = ${depositAddressId}::uuid ORDER BY chain, block_number, log_index`,
  );
}

/** Delivers every due webhook to the receiver; answers every verified payload received so far. */
async function deliverAll(): Promise<DepositWebhookPayload[]> {
  const deliverer = createWebhookDeliverer(t.ctx, { timeoutMs: 5000 });
  try {
    for (let i = 0; i < 10; i++) if ((await deliverer.deliverDue(100)).length === 0) break;
  } finally {
    await deliverer.close();
  }
  return receiver.received.map((r) => {
    const verified = verifyWebhook(r.body, r.headers, SECRET, { toleranceSeconds: 0 });
    if (!verified.ok) throw new Error(`webhook not verified: ${verified.reason}`);
    return verified.payload as unknown as DepositWebhookPayload;
  });
}

beforeAll(async () => {
  receiver = await startReceiver();
  t = await createTestApp({
    env: {
      CHAINS: "ethereum,bsc",
      CONFIRMATIONS: "1",
      SWEEP_ENABLED: "false",
      SWEEP_MIN_USDT: "6",
      ...evmChainEnv("ethereum", eth()),
      // bsc's USDT is the 18-decimal token, as on BSC.
      ...evmChainEnv("bsc", bsc(), bsc().usdt18Contract),
    },
  });
  shop = await addMerchant(t.ctx, "EVM Deposits");
  for (const chain of t.ctx.chains.list) {
    const scanner = createScanner(t.ctx, { chain, retry: FAST_RETRY, maxIdleMs: 50 });
    scanners.set(chain.id, scanner);
    await scanner.sync();
  }
}, 60_000);
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe("static deposit addresses on EVM chains", () => {
  let address: string;
  let id: string;

  it("gives a customer one EIP-55 address on the EVM static branch, the same for every EVM chain", async () => {
    const first = await post({
      customer_ref: "gamer-1",
      callback_url: receiver.url,
      chain: "ethereum",
      currency: "USDC",
    });
    expect(first.statusCode, first.body).toBe(201);
    const created = first.json();
    // m/44'/60'/0'/1/0, derived here by ethers from the mnemonic, not by the service's code.
    const expected = HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, "m/44'/60'/0'/1/0").address;
    expect(created).toMatchObject({
      customer_ref: "gamer-1",
      address: expected,
      chain: "ethereum",
      currency: "USDC",
      network: "devnet",
      chains: ["ethereum", "bsc"],
      currencies: ["USDT", "USDC"],
      status: "active",
    });
    expect(expected).not.toBe(expected.toLowerCase());
    ({ address, id } = created as { address: string; id: string });

    // Asking for the other EVM chain: the same address (200).
    const again = await post({ customer_ref: "gamer-1", callback_url: receiver.url, chain: "bsc" });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ id, address: expected, chain: "ethereum" });

    // Another customer: the next index of the branch.
    const other = await post({ customer_ref: "gamer-2", callback_url: receiver.url, chain: "bsc" });
    expect(other.statusCode, other.body).toBe(201);
    expect(other.json()).toMatchObject({
      address: HDNodeWallet.fromPhrase(TEST_MNEMONIC, undefined, "m/44'/60'/0'/1/1").address,
      chain: "bsc",
      currency: "USDT",
    });
  });

  it("refuses a chain or currency the deployment does not enable with 400 UNSUPPORTED_CURRENCY, creating nothing", async () => {
    const [before] = await queryRows<{ n: string }>(
      t.ctx.db,
      sql`SELECT count(*)::text AS n FROM deposit_addresses`,
    );
    for (const body of [
      { chain: "polygon" },
      { chain: "tron" },
      { chain: "solana" },
      { chain: "ethereum", currency: "DAI" },
    ]) {
      const res = await post({ customer_ref: "gamer-9", callback_url: receiver.url, ...body });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: "UNSUPPORTED_CURRENCY", error: expect.any(String) });
    }
    const [after] = await queryRows<{ n: string }>(
      t.ctx.db,
      sql`SELECT count(*)::text AS n FROM deposit_addresses`,
    );
    expect(after).toEqual(before);
  });

  it("credits a deposit on each EVM chain once, reported once with its chain and exact amount, only after finality", async () => {
    const usdc = await pay(eth(), eth().usdcContract, address, 7_250_000n);
    // 5.5 of the 18-decimal USDT, with a sub-micro tail that is never credited.
    const usdt18 = await pay(bsc(), bsc().usdt18Contract, address, 5_500_000_000_000_000_042n);
    await sync("ethereum");
    await sync("bsc");
    expect(await depositRows(id)).toEqual([
      { chain: "bsc", currency: "USDT", amount: "5500000", status: "detected", tx_hash: usdt18 },
      { chain: "ethereum", currency: "USDC", amount: "7250000", status: "detected", tx_hash: usdc },
    ]);
    // Not final yet: fewer blocks on top than the finality depth.
    await eth().mine(eth().finalityDepth - 2);
    await sync("ethereum");
    expect((await depositRows(id)).map((d) => d.status)).toEqual(["detected", "detected"]);
    expect(await deliverAll()).toEqual([]);

    await finalise(eth(), "ethereum");
    expect((await depositRows(id)).map((d) => [d.chain, d.status])).toEqual([
      ["bsc", "detected"],
      ["ethereum", "confirmed"],
    ]);
    await finalise(bsc(), "bsc");
    expect((await depositRows(id)).map((d) => d.status)).toEqual(["confirmed", "confirmed"]);

    let hooks = await deliverAll();
    // Scanning and delivering again reports nothing twice.
    await finalise(eth(), "ethereum");
    await finalise(bsc(), "bsc");
    hooks = await deliverAll();
    expect(hooks.map((h) => [h.event, h.chain, h.currency, h.amount, h.tx_hash, h.to_address])).toEqual(
      expect.arrayContaining([
        ["deposit.confirmed", "ethereum", "USDC", "7.250000", usdc, address],
        ["deposit.confirmed", "bsc", "USDT", "5.500000", usdt18, address],
      ]),
    );
    expect(hooks).toHaveLength(2);
    expect(hooks.every((h) => h.network === "devnet" && h.customer_ref === "gamer-1")).toBe(true);

    // Each credited to the merchant once.
    const credits = await queryRows<{ n: string }>(
      t.ctx.db,
      sql`SELECT count(*)::text AS n FROM ledger_transactions
          WHERE ref_type = 'deposit' AND ref_id IN (SELECT id::text FROM deposits WHERE deposit_address_id = ${id}::uuid)`,
    );
    expect(credits).toEqual([{ n: "2" }]);

    // The merchant's reads show each deposit's chain and currency, and the address's totals.
    const read = await t.app.inject({
      method: "GET",
      url: `/api/v1/deposit-addresses/${id}`,
      headers: { "x-api-key": shop.apiKey },
    });
    expect(read.statusCode, read.body).toBe(200);
    const detail = read.json() as {
      deposit_count: number;
      address: string;
      recent_deposits: Record<string, unknown>[];
    };
    expect(detail.deposit_count).toBe(2);
    expect(detail.address).toBe(address);
    expect(detail.recent_deposits.map((d) => [d.chain, d.currency, d.amount, d.address])).toEqual(
      expect.arrayContaining([
        ["ethereum", "USDC", "7.250000", address],
        ["bsc", "USDT", "5.500000", address],
      ]),
    );
    for (const d of detail.recent_deposits)
      expect(d.confirmations).toBeGreaterThanOrEqual(eth().finalityDepth);
  });

  it("counts an EVM address's unswept balance per chain for the sweep by balance", async () => {
    // SWEEP_MIN_USDT is 6: ethereum holds 7.25 (due), bsc 5.5 (not due), though they sum to 12.75.
    const due = await t.ctx.db.transaction((tx) => staticSweepsDue(t.ctx, tx, [id]));
    expect(due).toEqual([
      { addressId: expect.any(Number), address: address.toLowerCase(), chain: "ethereum" },
    ]);
  });

  it("reverts a deposit a reorganisation removes before finality, and never reports it confirmed", async () => {
    const before = receiver.received.length;
    const dropped = await pay(eth(), eth().usdtContract, address, 3_000_000n);
    await sync("ethereum");
    expect((await depositRows(id)).find((d) => d.tx_hash === dropped)?.status).toBe("detected");
    // Replace the deposit's block (the head) with an empty one: the transfer is gone.
    await eth().rpc("anvil_reorg", [1, []]);
    await sync("ethereum");
    expect((await depositRows(id)).find((d) => d.tx_hash === dropped)?.status).toBe("reverted");
    await finalise(eth(), "ethereum");
    expect((await depositRows(id)).filter((d) => d.tx_hash === dropped).map((d) => d.status)).toEqual([
      "reverted",
    ]);
    const hooks = await deliverAll();
    expect(hooks.slice(before).filter((h) => h.tx_hash === dropped)).toEqual([]);
    expect(receiver.received.length).toBe(before);
  });
});
