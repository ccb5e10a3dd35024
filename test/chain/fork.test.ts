import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet } from "@stablegate/devnet";
import { createChainAccess } from "../../src/chain/chain-access.js";
import { readCursor } from "../../src/chain/cursor.js";
import { createScanner } from "../../src/chain/scanner.js";
import { createContext } from "../../src/context.js";
import { createLogger } from "../../src/logger.js";
import { testConfig } from "../helpers/config.js";
import { CONFIRMATIONS, FAST_RETRY, SOLIDIFY_AFTER, startChainTest, type ChainTest } from "./helpers.js";

const USDT = 1_000_000n;

let t: ChainTest;

beforeAll(async () => {
  t = await startChainTest();
  await t.scanner.sync();
});
afterAll(() => t.close());

interface ForkReply {
  dropped: { number: number; id: string; transactions: string[] }[];
  head: number;
}

describe("chain reorganisations", () => {
  it("returns a detected order to pending when a fork drops its only transfer", async () => {
    const order = await t.order("10");
    const txid = await t.pay(order.address, 10n * USDT);
    t.mine(2);
    await t.scanner.sync();
    expect((await t.orderRow(order.id)).status).toBe("detected");

    const fork = await t.devnetPost<ForkReply>("/devnet/fork", { depth: 2 });
    expect(fork.dropped.flatMap((b) => b.transactions)).toContain(txid);
    const result = await t.scanner.scanOnce();
    expect(result.rewoundTo).toBeLessThan(fork.dropped[0]?.number ?? 0);
    await t.scanner.sync();

    const row = await t.orderRow(order.id);
    expect(row.status).toBe("pending");
    expect(row.txHash).toBeNull();
    expect(row.detectedAt).toBeNull();
    expect(await t.transfersOf(order.id)).toEqual([]);
    expect((await t.events(order.id)).slice(-1)).toEqual(["payment_reverted"]);
    const cursor = await readCursor(t.ctx);
    const head = (await t.tw.trx.getCurrentBlock()) as {
      blockID: string;
      block_header: { raw_data: { number: number } };
    };
    expect(cursor).toEqual({ number: head.block_header.raw_data.number, hash: head.blockID });

    // The order keeps working: a new payment is detected and confirmed on the new branch.
    await t.pay(order.address, 10n * USDT);
    t.mine();
    await t.finalize();
    expect((await t.orderRow(order.id)).status).toBe("confirmed");
  });

  it("keeps an order detected when a fork drops one of two transfers, and moves tx_hash to the survivor", async () => {
    const order = await t.order("10");
    const first = await t.pay(order.address, 4n * USDT);
    t.mine();
    const second = await t.pay(order.address, 6n * USDT);
    t.mine();
    await t.scanner.sync();
    expect((await t.orderRow(order.id)).txHash).toBe(first);

    // Only the newest block, holding the second transfer, is reorganised away.
    await t.devnetPost<ForkReply>("/devnet/fork", { depth: 1 });
    await t.scanner.sync();
    let row = await t.orderRow(order.id);
    expect(row.status).toBe("detected");
    expect((await t.transfersOf(order.id)).map((x) => x.txHash)).toEqual([first]);
    expect(second).not.toBe(first);

    await t.finalize();
    row = await t.orderRow(order.id);
    expect(row.status).toBe("underpaid");
    expect(row.amountReceived).toBe(4n * USDT);
    expect(row.txHash).toBe(first);
  });

  it("sends an order whose time is up to expired when its payment is reverted", async () => {
    const order = await t.order("2", { expiresIn: 60 });
    await t.pay(order.address, 2n * USDT);
    t.mine();
    await t.scanner.sync();
    expect((await t.orderRow(order.id)).status).toBe("detected");
    t.clock.advanceSeconds(120);
    await t.devnetPost("/devnet/fork", { depth: 1 });
    await t.scanner.sync();
    expect((await t.orderRow(order.id)).status).toBe("expired");
    expect((await t.events(order.id)).slice(-1)).toEqual(["payment_reverted"]);
  });

  it("never finalises a transfer before CONFIRMATIONS and solidification", async () => {
    const order = await t.order("1");
    await t.pay(order.address, 1n * USDT);
    t.mine(Math.min(CONFIRMATIONS, SOLIDIFY_AFTER)); // one block short of final
    await t.scanner.sync();
    expect((await t.orderRow(order.id)).status).toBe("detected");
    t.mine();
    await t.scanner.sync();
    expect((await t.orderRow(order.id)).status).toBe("confirmed");
  });
});

describe("a chain that was reset", () => {
  it("re-syncs to a new chain (devnet state lost) without crashing and credits payments on it", async () => {
    const order = await t.order("5");
    await t.pay(order.address, 5n * USDT);
    t.mine();
    await t.scanner.sync();
    expect((await t.orderRow(order.id)).status).toBe("detected");

    // A brand-new devnet: none of the scanned blocks exist there.
    const fresh = await startDevnet({ blockTimeMs: 0, solidifyAfter: SOLIDIFY_AFTER, quiet: true });
    try {
      const config = testConfig({
        TRON_NODE_URL: fresh.url,
        USDT_CONTRACT: fresh.usdtContract,
        CONFIRMATIONS: String(CONFIRMATIONS),
      });
      const ctx = await createContext(config, {
        database: t.ctx.database,
        clock: t.clock,
        log: createLogger({ level: "silent" }),
        chain: createChainAccess(config),
      });
      const scanner = createScanner(ctx, { retry: FAST_RETRY });
      fresh.mine(5);
      const result = await scanner.scanOnce();
      expect(result.rewoundTo).toBe(fresh.mine(0) - 1);
      await scanner.sync();
      expect((await t.orderRow(order.id)).status).toBe("pending");
      expect(await t.transfersOf(order.id)).toEqual([]);

      // Paying on the new chain works (the same USDT contract address: the devnet derives it).
      expect(fresh.usdtContract).toBe(t.devnet.usdtContract);
      const { TronWeb } = await import("tronweb");
      const tw = new TronWeb({ fullHost: fresh.url, privateKey: fresh.faucetKey });
      const usdt = await tw.contract().at(fresh.usdtContract);
      await usdt.transfer(order.address, 5_000_000).send();
      fresh.mine(5);
      await scanner.sync();
      await scanner.sync();
      expect((await t.orderRow(order.id)).status).toBe("confirmed");
      await ctx.chain.close();
    } finally {
      await fresh.close();
    }
  });
});
