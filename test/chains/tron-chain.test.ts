/**
 * TRON behind the chain boundary, against the devnet over HTTP: the registry on the context, the
 * address format and derivation, the head, a block's transfers in token units with their
 * decimals, the solidified head as the final chain, and a transaction's status and final record.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TronWeb } from "tronweb";
import { deriveAddress } from "@stablegate/tron/hd";
import { chainRegistry } from "../../src/chains/registry.js";
import type { Chain } from "../../src/chains/chain.js";
import { createLogger } from "../../src/logger.js";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "../chain/helpers.js";

let t: ChainTest;
let chain: Chain;
const call = () => ({ signal: new AbortController().signal, log: createLogger({ level: "silent" }) });

beforeAll(async () => {
  t = await startChainTest();
  chain = t.ctx.chains.primary;
});
afterAll(async () => {
  await t.close();
});

describe("the chain registry", () => {
  it("holds TRON as the primary and only chain, with the devnet's USDT of 6 decimals", () => {
    expect(t.ctx.chains.list.map((c) => c.id)).toEqual(["tron"]);
    expect(chain.id).toBe("tron");
    expect(chain.family).toBe("tron");
    expect(chain.network).toBe("devnet");
    expect(chain.tokens).toEqual([{ currency: "USDT", contract: t.devnet.usdtContract, decimals: 6 }]);
    expect(t.ctx.chains.get("tron")).toBe(chain);
    expect(t.ctx.chains.get("ethereum")).toBeUndefined();
    expect(chain.faucet).toBeDefined();
  });

  it("refuses no chain and a chain enabled twice", () => {
    expect(() => chainRegistry([])).toThrow("no chain is enabled");
    expect(() => chainRegistry([chain, chain])).toThrow("chain tron is enabled twice");
  });
});

describe("TRON addresses", () => {
  it("validates base58check addresses and stores them as written", () => {
    const address = TronWeb.address.fromPrivateKey(t.devnet.faucetKey) as string;
    expect(chain.address.isValid(address)).toBe(true);
    expect(chain.address.normalise(address)).toBe(address);
    expect(chain.address.display(address)).toBe(address);
    // One character changed breaks the checksum.
    const broken = address.slice(0, -1) + (address.endsWith("a") ? "b" : "a");
    for (const bad of [broken, "", "0x" + "11".repeat(20), address.toLowerCase()]) {
      expect(chain.address.isValid(bad)).toBe(false);
      expect(chain.address.normalise(bad)).toBeUndefined();
    }
  });

  it("derives the toolkit's addresses from the xpub, one at a time and in batches, per branch", async () => {
    const xpub = t.config.walletXpub;
    const batch = await chain.derivation.deriveAddresses(xpub, 5, 3);
    expect(batch).toEqual([5, 6, 7].map((i) => deriveAddress(xpub, i, 0)));
    expect(chain.derivation.deriveAddress(xpub, 5, 0)).toBe(batch[0]);
    const statics = await chain.derivation.deriveAddresses(xpub, 5, 1, 1);
    expect(statics).toEqual([chain.derivation.deriveAddress(xpub, 5, 1)]);
    expect(statics[0]).not.toBe(batch[0]);
    expect(["libsecp256k1", "noble"]).toContain(chain.derivation.backend().backend);
  });
});

describe("reading TRON through the boundary", () => {
  it("reads a payment as a token transfer in units with decimals, linked to its parent block", async () => {
    const { address } = await t.order("12.345678");
    const txHash = await t.pay(address, 12_345_678n);
    t.mine(1);
    const head = await chain.head(call());
    const [read] = chain.readBlocks(head.number, head.number, { ...call(), concurrency: 2, head });
    const block = await read;
    expect(block?.header).toEqual({
      number: head.number,
      hash: head.hash,
      parentHash: head.parentHash,
      timestamp: head.timestamp,
    });
    expect(await chain.blockHash(head.number - 1, call())).toBe(head.parentHash);
    expect(block?.transfers).toHaveLength(1);
    const transfer = block?.transfers[0];
    expect(transfer).toMatchObject({
      txHash,
      blockNumber: head.number,
      blockHash: head.hash,
      currency: "USDT",
      to: address,
      units: 12_345_678n,
      decimals: 6,
    });
    expect(transfer?.from).toBe(TronWeb.address.fromPrivateKey(t.devnet.faucetKey));
    expect(await chain.headNumber()).toBe(head.number);

    // Not solidified yet: included, not final, and no final record.
    expect(await chain.transactionStatus(txHash)).toEqual({
      state: "included",
      blockNumber: head.number,
      success: true,
      final: false,
    });
    expect(await chain.finalTransfers(txHash)).toBeUndefined();
    expect(await chain.finalBlockHash(head.number, call())).toBeUndefined();

    t.mine(SOLIDIFY_AFTER + 1);
    const final = await chain.finalHead(call());
    expect(final.number).toBeGreaterThanOrEqual(head.number);
    expect(await chain.finalBlockHash(final.number, call())).toBe(final.hash);
    expect(await chain.finalBlockHash(head.number, call())).toBe(head.hash);
    expect(await chain.transactionStatus(txHash)).toEqual({
      state: "included",
      blockNumber: head.number,
      success: true,
      final: true,
    });
    const recorded = await chain.finalTransfers(txHash);
    expect(recorded?.map((r) => [r.logIndex, r.to, r.units, r.decimals])).toEqual([
      [0, address, 12_345_678n, 6],
    ]);
  });

  it("knows nothing of a transaction the chain never saw", async () => {
    const unknown = "ab".repeat(32);
    expect(await chain.transactionStatus(unknown)).toEqual({ state: "unknown" });
    expect(await chain.finalTransfers(unknown)).toBeUndefined();
  });

  it("lists its nodes and what it last saw of the head", async () => {
    const head = await chain.head(call());
    chain.observeHead(head.number);
    expect(chain.lastHead()?.number).toBe(head.number);
    const nodes = chain.nodes();
    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({ index: 0, state: "healthy", active: true });
    expect(chain.degraded()).toBe(false);
  });
});
