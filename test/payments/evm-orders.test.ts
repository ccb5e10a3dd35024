/**
 * Orders on EVM chains, paid on two Anvil devnets over HTTP (ethereum, chain id 31337, with the
 * 6-decimal USDT and USDC; bsc, chain id 56, whose USDT is the 18-decimal token) and scanned by one
 * scanner per chain with outcomes only at the `finalized` tag (4 blocks behind the head here):
 * exact, under- and overpaid orders; an 18-decimal payment with a sub-micro remainder; a
 * reorganisation that removes a detected payment before finality; a payment on the wrong chain or
 * in the wrong token recorded as a stray on the chain it was seen on; the scanner leaders, one per
 * chain, each holding its own lock. PostgreSQL when TEST_DATABASE_URL is set, else PGlite.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EvmDevnet } from "@stablegate/devnet";
import type { ChainId } from "../../src/chains/chain-types.js";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import { scannerLockKey, startScannerLeaders } from "../../src/chain/scanner-leader.js";
import { queryRows } from "../../src/db/query-rows.js";
import { fillAddressPools } from "../../src/wallet/fill-address-pool.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { poll } from "../helpers/poll.js";
import { FAST_RETRY } from "../chain/helpers.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "./helpers.js";

const eth = evmDevnetForFile({ chainId: 31337 });
const bsc = evmDevnetForFile({ chainId: 56 });
let t: TestApp;
let shop: TestMerchant;
const scanners = new Map<ChainId, Scanner>();

/** A token transfer of `units` (the token's own units) from the devnet's faucet, mined in a block. */
async function pay(devnet: EvmDevnet, token: string, to: string, units: bigint): Promise<string> {
  const hash = await sendToken(devnet, token, to, units);
  await devnet.mine(1);
  return hash;
}

async function create(chain: ChainId, currency: string, amount: string) {
  const res = await postOrder(t, shop.apiKey, orderBody({ chain, currency, amount }));
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; address: string; chain: string };
}

async function order(id: string) {
  const [row] = await queryRows<{ status: string; received: string; chain: string }>(
    t.ctx.db,
    sql`SELECT status, amount_received::text AS received, chain FROM orders WHERE id = ${id}::uuid`,
  );
  return row;
}

async function sync(chain: ChainId) {
  await (scanners.get(chain) as Scanner).sync();
}

/** Mines past the finality depth on `devnet` and scans its chain. */
async function finalise(devnet: EvmDevnet, chain: ChainId) {
  await devnet.mine(devnet.finalityDepth + 1);
  await sync(chain);
}

beforeAll(async () => {
  t = await createTestApp({
    env: {
      CHAINS: "ethereum,bsc",
      CONFIRMATIONS: "1",
      POOL_MIN_FREE: "10",
      ...evmChainEnv("ethereum", eth()),
      // bsc's USDT is the 18-decimal token, as on BSC.
      ...evmChainEnv("bsc", bsc(), bsc().usdt18Contract),
    },
  });
  shop = await addMerchant(t.ctx, "EVM Shop");
  await fillAddressPools(t.ctx);
  for (const chain of t.ctx.chains.list) {
    const scanner = createScanner(t.ctx, { chain, retry: FAST_RETRY, maxIdleMs: 50 });
    scanners.set(chain.id, scanner);
    await scanner.sync();
  }
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe("EVM orders scanned per chain", () => {
  it("confirms exact, under- and overpaid orders on USDT, USDC and an 18-decimal USDT, only at finality", async () => {
    const exact = await create("ethereum", "USDT", "10");
    const under = await create("ethereum", "USDC", "10");
    const over = await create("bsc", "USDT", "5");
    await pay(eth(), eth().usdtContract, exact.address, 10_000_000n);
    await pay(eth(), eth().usdcContract, under.address, 7_500_000n);
    await pay(bsc(), bsc().usdt18Contract, over.address, 6n * 10n ** 18n);
    await sync("ethereum");
    await sync("bsc");
    expect((await order(exact.id))?.status).toBe("detected");
    expect((await order(under.id))?.status).toBe("detected");
    expect((await order(over.id))?.status).toBe("detected");

    await finalise(eth(), "ethereum");
    await finalise(bsc(), "bsc");
    expect(await order(exact.id)).toEqual({ status: "confirmed", received: "10000000", chain: "ethereum" });
    expect(await order(under.id)).toEqual({ status: "underpaid", received: "7500000", chain: "ethereum" });
    expect(await order(over.id)).toEqual({ status: "overpaid", received: "6000000", chain: "bsc" });
    const transfers = await queryRows<{ chain: string; remainder: string }>(
      t.ctx.db,
      sql`SELECT chain, remainder::text FROM transfers WHERE order_id IN (${exact.id}::uuid, ${over.id}::uuid)
          ORDER BY chain`,
    );
    expect(transfers).toEqual([
      { chain: "bsc", remainder: "0" },
      { chain: "ethereum", remainder: "0" },
    ]);
    // The outcome webhooks carry the chain.
    const hooks = await queryRows<{ payload: string }>(
      t.ctx.db,
      sql`SELECT payload FROM webhook_deliveries WHERE order_id = ${over.id}::uuid AND event = 'payment.overpaid'`,
    );
    expect(hooks.length).toBe(1);
    expect(JSON.parse(hooks[0]?.payload ?? "{}")).toMatchObject({ chain: "bsc", currency: "USDT" });
  });

  it("credits an 18-decimal payment's exact micro-units and keeps its sub-micro remainder", async () => {
    const o = await create("bsc", "USDT", "1.25");
    await pay(bsc(), bsc().usdt18Contract, o.address, 1_250_000_000_000_000_123n);
    await sync("bsc");
    await finalise(bsc(), "bsc");
    expect(await order(o.id)).toEqual({ status: "confirmed", received: "1250000", chain: "bsc" });
    const [row] = await queryRows<{ amount: string; remainder: string }>(
      t.ctx.db,
      sql`SELECT amount::text, remainder::text FROM transfers WHERE order_id = ${o.id}::uuid`,
    );
    expect(row).toEqual({ amount: "1250000", remainder: "123" });
  });

  it("reverts a detected payment that a reorganisation removed before finality, and never confirms it", async () => {
    const o = await create("ethereum", "USDC", "3");
    await pay(eth(), eth().usdcContract, o.address, 3_000_000n);
    await sync("ethereum");
    expect((await order(o.id))?.status).toBe("detected");
    // Replace the payment's block (the head) with an empty one: the transfer is gone.
    await eth().rpc("anvil_reorg", [1, []]);
    await sync("ethereum");
    expect((await order(o.id))?.status).toBe("pending");
    await finalise(eth(), "ethereum");
    expect(await order(o.id)).toEqual({ status: "pending", received: "0", chain: "ethereum" });
    const [events] = await queryRows<{ types: string[] }>(
      t.ctx.db,
      sql`SELECT array_agg(event_type ORDER BY created_at, id) AS types FROM order_events WHERE order_id = ${o.id}::uuid`,
    );
    expect(events?.types).toContain("payment_reverted");
    const [left] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM transfers WHERE order_id = ${o.id}::uuid`,
    );
    expect(left?.n).toBe(0);
  });

  it("records a payment on the wrong EVM chain, or in the wrong token, as a stray on the chain it was seen on", async () => {
    const o = await create("ethereum", "USDC", "2");
    // Same address, same key, but on bsc: not the order's payment.
    const wrongChain = await pay(bsc(), bsc().usdcContract, o.address, 2_000_000n);
    // On the order's chain but in USDT, not USDC.
    const wrongToken = await pay(eth(), eth().usdtContract, o.address, 2_000_000n);
    await sync("bsc");
    await sync("ethereum");
    await finalise(bsc(), "bsc");
    await finalise(eth(), "ethereum");
    expect(await order(o.id)).toEqual({ status: "pending", received: "0", chain: "ethereum" });
    const strays = await queryRows<{ chain: string; tx_hash: string; status: string; previous: string }>(
      t.ctx.db,
      sql`SELECT chain, tx_hash, status, previous_order_id::text AS previous FROM stray_transfers
          WHERE to_address = ${o.address.toLowerCase()} ORDER BY chain`,
    );
    expect(strays).toEqual([
      { chain: "bsc", tx_hash: wrongChain.toLowerCase(), status: "confirmed", previous: o.id },
      { chain: "ethereum", tx_hash: wrongToken.toLowerCase(), status: "confirmed", previous: o.id },
    ]);
    // The address stays the order's.
    const [held] = await queryRows<{ order_id: string }>(
      t.ctx.db,
      sql`SELECT order_id::text FROM addresses WHERE address = ${o.address.toLowerCase()}`,
    );
    expect(held?.order_id).toBe(o.id);
  });

  it("runs one scanner leader per chain, each on its own lock, and confirms through them", async () => {
    expect(scannerLockKey("ethereum")).not.toBe(scannerLockKey("bsc"));
    const leaders = startScannerLeaders(t.ctx, { retry: FAST_RETRY, maxIdleMs: 50, lockRetryMs: 100 });
    try {
      await poll("both chains led", () => leaders.every((l) => l.isLeader()), {
        describe: () => leaders.map((l) => [l.name, l.isLeader()]),
      });
      expect(leaders.map((l) => l.name)).toEqual(["chain-scanner", "chain-scanner:bsc"]);
      const o = await create("bsc", "USDC", "4");
      await pay(bsc(), bsc().usdcContract, o.address, 4_000_000n);
      await poll("the bsc payment confirmed by the leader", async () => (await order(o.id))?.status, {
        until: (s) => s === "confirmed",
        between: () => bsc().mine(1),
        intervalMs: 200,
      });
    } finally {
      for (const leader of leaders) await leader.stop();
    }
  });
});
