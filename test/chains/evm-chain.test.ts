/**
 * EVM chains behind the chain boundary, against a real Anvil (the devnet's three tokens): addresses
 * and derivation cross-checked with viem, Transfer logs read over ranges with exact units, block
 * continuity, a reorganisation, finality by tag and by confirmations, and endpoint faults through a
 * real HTTP stand-in in front of Anvil (failover mid-range, 429s, refused ranges and batches).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createPublicClient, getAddress, http, parseAbiItem, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { createEvmChain, type EvmChain, type EvmFinality } from "../../src/chains/evm/evm-chain.js";
import { createRpcPool } from "../../src/chains/evm/rpc-pool.js";
import type { ReadBlock, TokenTransfer } from "../../src/chains/chain.js";
import { createLogger } from "../../src/logger.js";
import { createChains } from "../../src/chains/create-chains.js";
import { systemClock } from "../../src/clock.js";
import { createMetrics } from "../../src/metrics/metrics.js";
import { TEST_MNEMONIC, testConfig } from "../helpers/config.js";
import { evmDevnetForFile } from "../helpers/evm-devnet.js";
import { startStandIn, type StandIn } from "./evm-stand-in.js";

const devnet = evmDevnetForFile({ finalityDepth: 4 });
const XPUB = HDKey.fromMasterSeed(mnemonicToSeedSync(TEST_MNEMONIC)).derive("m/44'/60'/0'").publicExtendedKey;
const log = createLogger({ level: "silent" });
const call = () => ({ signal: new AbortController().signal, log, retry: { baseMs: 5, capMs: 20 } });
const read = () => ({ ...call(), concurrency: 2 });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

function chainOn(
  urls: string[],
  opts: {
    finality?: EvmFinality;
    finalityFallback?: number;
    maxRange?: number;
    only18?: boolean;
    faucet?: boolean;
  } = {},
): EvmChain {
  const d = devnet();
  const chain = createEvmChain({
    id: "ethereum",
    network: "devnet",
    rpc: createRpcPool(urls, { failureThreshold: 2, pauseMs: 60_000, log }),
    contracts: opts.only18
      ? [{ currency: "USDT", contract: d.usdt18Contract.toLowerCase() }]
      : [
          { currency: "USDT", contract: d.usdtContract.toLowerCase() },
          { currency: "USDC", contract: d.usdcContract.toLowerCase() },
          { currency: "USDT", contract: d.usdt18Contract.toLowerCase() },
        ],
    faucetPrivateKey: opts.faucet ? d.faucetPrivateKey : undefined,
    finality: opts.finality ?? "finalized",
    finalityFallback: opts.finalityFallback,
    maxRange: opts.maxRange ?? 1000,
  });
  cleanups.push(() => chain.close());
  return chain;
}

async function standIn(): Promise<StandIn> {
  const s = await startStandIn(devnet().rpcUrl);
  cleanups.push(() => s.close());
  return s;
}

const word = (v: bigint | string) =>
  (typeof v === "string" ? v.replace(/^0x/, "") : v.toString(16)).padStart(64, "0");

/** A token transfer from the faucet (an unlocked Anvil account), left pending until a block is mined. */
async function send(token: string, to: string, units: bigint, from?: string): Promise<string> {
  const d = devnet();
  return d.rpc<string>("eth_sendTransaction", [
    { from: from ?? d.faucetAddress, to: token, data: "0xa9059cbb" + word(to) + word(units), gas: "0x30000" },
  ]);
}

async function readAll(chain: EvmChain, from: number, to: number): Promise<ReadBlock[]> {
  return Promise.all(chain.readBlocks(from, to, read()));
}

const flat = (blocks: ReadBlock[]): TokenTransfer[] => blocks.flatMap((b) => b.transfers);

describe("EVM addresses", () => {
  it("derives the addresses viem derives from the mnemonic, on both branches", async () => {
    const chain = chainOn([devnet().rpcUrl]);
    for (const branch of [0, 1] as const) {
      const batch = await chain.derivation.deriveAddresses(XPUB, 0, 40, branch);
      for (let i = 0; i < 40; i++) {
        const expected = mnemonicToAccount(TEST_MNEMONIC, { changeIndex: branch, addressIndex: i }).address;
        expect(batch[i]).toBe(expected.toLowerCase());
        if (i < 3) expect(chain.derivation.deriveAddress(XPUB, i, branch)).toBe(expected.toLowerCase());
      }
    }
  });

  it("stores lowercase, shows EIP-55 and refuses a wrong checksum", () => {
    const chain = chainOn([devnet().rpcUrl]);
    const good = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    expect(chain.address.normalise(good)).toBe(good.toLowerCase());
    expect(chain.address.normalise(good.toLowerCase())).toBe(good.toLowerCase());
    expect(chain.address.normalise(good.toUpperCase().replace("0X", "0x"))).toBe(good.toLowerCase());
    expect(chain.address.isValid(good.replace("C51", "c51"))).toBe(false);
    expect(chain.address.isValid("0x1234")).toBe(false);
    expect(chain.address.isValid("TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")).toBe(false);
    expect(chain.address.display(good.toLowerCase())).toBe(getAddress(good));
  });
});

describe("reading blocks", () => {
  it("finds USDT, USDC and 18-decimal transfers with exact units, as viem decodes the logs", async () => {
    const d = devnet();
    const chain = chainOn([d.rpcUrl]);
    const to = await chain.derivation.deriveAddresses(XPUB, 100, 3, 0);
    const start = Number(BigInt(await d.rpc<string>("eth_blockNumber"))) + 1;
    await send(d.usdtContract, to[0] as string, 1_500_000n);
    await send(d.usdcContract, to[1] as string, 2_000_001n);
    await send(d.usdt18Contract, to[2] as string, 3_000_000_000_000_000_001n);
    // Anvil's second account holds no tokens: its transfer reverts and leaves no log.
    const reverted = await send(
      d.usdtContract,
      to[0] as string,
      5n,
      "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
    );
    const end = await d.mine(2);
    const blocks = await readAll(chain, start, end);
    expect(blocks.map((b) => b.header.number)).toEqual([start, start + 1]);
    const transfers = flat(blocks);
    expect(transfers.map((t) => [t.currency, t.to, t.units, t.decimals])).toEqual([
      ["USDT", to[0], 1_500_000n, 6],
      ["USDC", to[1], 2_000_001n, 6],
      ["USDT", to[2], 3_000_000_000_000_000_001n, 18],
    ]);
    expect(transfers.every((t) => t.from === d.faucetAddress.toLowerCase())).toBe(true);
    expect(transfers.some((t) => t.txHash === reverted)).toBe(false);
    expect(
      (await chain.transactionStatus(reverted)).state === "included" &&
        (await chain.transactionStatus(reverted)),
    ).toMatchObject({ success: false });
    expect(chain.tokens.map((t) => t.decimals)).toEqual([6, 6, 18]);

    const viem = createPublicClient({ transport: http(d.rpcUrl) });
    const logs = await viem.getLogs({
      address: [d.usdtContract, d.usdcContract, d.usdt18Contract] as Hex[],
      event: parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)"),
      fromBlock: BigInt(start),
      toBlock: BigInt(end),
    });
    expect(transfers.map((t) => [t.txHash, t.logIndex, t.to, t.units, t.blockHash])).toEqual(
      logs.map((l) => [
        l.transactionHash,
        l.logIndex,
        l.args.to?.toLowerCase(),
        l.args.value,
        l.blockHash.slice(2),
      ]),
    );
    // The header is the node's: hash, parent and timestamp.
    const b = await viem.getBlock({ blockNumber: BigInt(start) });
    expect(blocks[0]?.header).toEqual({
      number: start,
      hash: b.hash.slice(2),
      parentHash: b.parentHash.slice(2),
      timestamp: Number(b.timestamp) * 1000,
    });
  });

  it("links every block to its parent, and a re-read after anvil_reorg sees the new chain", async () => {
    const d = devnet();
    const chain = chainOn([d.rpcUrl]);
    const [payee] = await chain.derivation.deriveAddresses(XPUB, 200, 1, 0);
    const start = Number(BigInt(await d.rpc<string>("eth_blockNumber")));
    await d.mine(3);
    await send(d.usdcContract, payee as string, 7_000_000n);
    const end = await d.mine(2);
    const before = await readAll(chain, start, end);
    for (let i = 1; i < before.length; i++)
      expect(before[i]?.header.parentHash).toBe(before[i - 1]?.header.hash);
    expect(flat(before).map((t) => t.units)).toEqual([7_000_000n]);

    await d.rpc("anvil_reorg", [2, []]);
    const after = await readAll(chain, start, end);
    for (let i = 1; i < after.length; i++)
      expect(after[i]?.header.parentHash).toBe(after[i - 1]?.header.hash);
    expect(after.slice(0, -2).map((b) => b.header.hash)).toEqual(
      before.slice(0, -2).map((b) => b.header.hash),
    );
    expect(after.slice(-2).map((b) => b.header.hash)).not.toContain(before.at(-1)?.header.hash);
    expect(after.at(-2)?.header.hash).not.toBe(before.at(-2)?.header.hash);
    expect(flat(after)).toEqual([]);
    expect(await chain.blockHash(end, call())).toBe(after.at(-1)?.header.hash);
  });

  it("asks the same calls per range whatever is watched: one eth_getLogs and one header batch", async () => {
    const d = devnet();
    const s = await standIn();
    const chain = chainOn([s.url], { maxRange: 10 });
    const start = Number(BigInt(await d.rpc<string>("eth_blockNumber"))) + 1;
    const end = await d.mine(30);
    await readAll(chain, start, start); // token decimals are read once, first
    s.calls.length = 0;
    await readAll(chain, start, end);
    expect(s.calls.filter((m) => m === "eth_getLogs")).toHaveLength(3);
    expect(s.calls.filter((m) => m === "batch")).toHaveLength(3);
    expect(s.calls).toHaveLength(6);
  });
});

describe("finality", () => {
  it("follows the finalized tag by default and head - N + 1 with N confirmations", async () => {
    const d = devnet();
    const tagged = chainOn([d.rpcUrl]);
    const counted = chainOn([d.rpcUrl], { finality: 3 });
    const [payee] = await tagged.derivation.deriveAddresses(XPUB, 300, 1, 0);
    const tx = await send(d.usdtContract, payee as string, 9_000_000n);
    const included = await d.mine(1);
    const finalized = await d.rpc<{ number: string; hash: string }>("eth_getBlockByNumber", [
      "finalized",
      false,
    ]);
    expect(await tagged.finalHead(call())).toEqual({
      number: Number(BigInt(finalized.number)),
      hash: finalized.hash.slice(2),
    });
    expect(Number(BigInt(finalized.number))).toBe(included - 4);
    expect((await counted.finalHead(call())).number).toBe(included - 2);

    expect(await counted.transactionStatus(tx)).toEqual({
      state: "included",
      blockNumber: included,
      success: true,
      final: false,
    });
    expect(await counted.finalTransfers(tx)).toBeUndefined();
    expect(await counted.finalBlockHash(included, call())).toBeUndefined();
    await d.mine(2);
    expect(await counted.transactionStatus(tx)).toMatchObject({ final: true });
    expect(await tagged.transactionStatus(tx)).toMatchObject({ final: false });
    const transfers = await counted.finalTransfers(tx);
    expect(transfers?.map((t) => [t.to, t.units, t.blockNumber])).toEqual([[payee, 9_000_000n, included]]);
    expect(await counted.finalBlockHash(included, call())).toBe(await counted.blockHash(included, call()));
    await d.mine(2);
    expect(await tagged.transactionStatus(tx)).toMatchObject({ final: true });
    expect(await counted.transactionStatus("0x" + "ab".repeat(32))).toEqual({ state: "unknown" });
  });
});

describe("a stalled finalized tag", () => {
  it("counts the fallback depth of confirmations as final only while the tag lags further behind", async () => {
    const d = devnet();
    // The devnet finalizes latest - 4: with 3 confirmations as the fallback, the tag lags "too far".
    const stalled = chainOn([d.rpcUrl], { finalityFallback: 3 });
    const patient = chainOn([d.rpcUrl], { finalityFallback: 10 });
    const head = await d.mine(12);
    expect(stalled.finalityFallback()).toBe(false);
    expect(await stalled.finalHead(call())).toEqual({
      number: head - 2,
      hash: await stalled.blockHash(head - 2, call()),
    });
    expect(stalled.finalityFallback()).toBe(true);
    expect(await stalled.finalBlockHash(head - 2, call())).toBe(await stalled.blockHash(head - 2, call()));
    expect(await stalled.finalBlockHash(head - 1, call())).toBeUndefined();

    expect((await patient.finalHead(call())).number).toBe(head - 4);
    expect(patient.finalityFallback()).toBe(false);
  });
});

describe("endpoint faults", () => {
  it("fails over mid-range to the next endpoint without skipping a block", async () => {
    const d = devnet();
    const [a, b] = [await standIn(), await standIn()];
    const chain = chainOn([a.url, b.url], { maxRange: 5 });
    const payees = await chain.derivation.deriveAddresses(XPUB, 400, 10, 0);
    const start = Number(BigInt(await d.rpc<string>("eth_blockNumber"))) + 1;
    for (const p of payees) {
      await send(d.usdtContract, p, 1_000_000n);
      await d.mine(3);
    }
    const end = Number(BigInt(await d.rpc<string>("eth_blockNumber")));
    const reference = await readAll(chainOn([d.rpcUrl]), start, end);

    const blocks = chain.readBlocks(start, end, { ...read(), concurrency: 1 });
    await blocks[0];
    a.fail(500);
    const got = await Promise.all(blocks);
    expect(got.map((x) => x.header.number)).toEqual(reference.map((x) => x.header.number));
    expect(got).toEqual(reference);
    expect(flat(got).map((t) => t.to)).toEqual(payees);
    expect(b.calls.length).toBeGreaterThan(0);
    expect(chain.degraded()).toBe(true);
    expect(chain.nodes().map((n) => n.state)).toEqual(["failing", "healthy"]);
  });

  it("waits out 429s and 500s on a single endpoint and reads every block", async () => {
    const d = devnet();
    const s = await standIn();
    const chain = chainOn([s.url], { maxRange: 4 });
    const [payee] = await chain.derivation.deriveAddresses(XPUB, 500, 1, 0);
    const start = Number(BigInt(await d.rpc<string>("eth_blockNumber"))) + 1;
    await send(d.usdcContract, payee as string, 42n);
    const end = await d.mine(12);
    await readAll(chain, start, start);
    s.fail(429, 3);
    const got = await readAll(chain, start, end);
    s.fail(500, 2);
    expect(await readAll(chain, start, end)).toEqual(got);
    expect(got.map((x) => x.header.number)).toEqual(
      Array.from({ length: end - start + 1 }, (_, i) => start + i),
    );
    expect(flat(got).map((t) => t.units)).toEqual([42n]);
  });

  it("shrinks the range when the provider refuses it, for logs and for header batches", async () => {
    const d = devnet();
    const s = await standIn();
    const chain = chainOn([s.url], { maxRange: 16 });
    const payees = await chain.derivation.deriveAddresses(XPUB, 600, 4, 0);
    const start = Number(BigInt(await d.rpc<string>("eth_blockNumber"))) + 1;
    for (const p of payees) {
      await send(d.usdt18Contract, p, 10n ** 18n);
      await d.mine(4);
    }
    const end = Number(BigInt(await d.rpc<string>("eth_blockNumber")));
    s.maxLogRange = 4;
    s.maxBatch = 6;
    const got = await readAll(chain, start, end);
    expect(got.map((x) => x.header.number)).toEqual(
      Array.from({ length: end - start + 1 }, (_, i) => start + i),
    );
    expect(flat(got).map((t) => [t.to, t.units])).toEqual(payees.map((p) => [p, 10n ** 18n]));
    expect(chain.rangeSize()).toBeLessThanOrEqual(4);
  });
});

describe("endpoint keys", () => {
  it("never shows a key in an endpoint's path: not in node status, errors or metrics", async () => {
    const s = await standIn();
    const key = "k3y-0123456789abcdef";
    const metrics = createMetrics();
    const config = testConfig({ CHAINS: "tron,ethereum", ETHEREUM_RPC_URL: `${s.url}/v3/${key}` });
    const { registry } = createChains(config, { log, metrics, clock: systemClock });
    cleanups.push(() => registry.close());
    const chain = registry.get("ethereum");
    if (!chain) throw new Error("ethereum is not enabled");
    expect(await chain.headNumber()).toBeGreaterThan(0);
    s.fail(500, 1);
    const error = await chain.headNumber().then(
      () => "answered",
      (e: unknown) => String(e),
    );
    expect(error).toMatch(/HTTP 500/);
    expect(error).not.toContain(key);
    expect(JSON.stringify(chain.nodes())).not.toContain(key);
    const scraped = await metrics.registry.metrics();
    expect(scraped).toContain("eth_blockNumber");
    expect(scraped).not.toContain(key);
  });
});

describe("the devnet's faucet", () => {
  it("pays micro-units in the token's own units with a locally signed transfer", async () => {
    const d = devnet();
    const six = chainOn([d.rpcUrl], { faucet: true });
    const eighteen = chainOn([d.rpcUrl], { faucet: true, only18: true });
    expect(chainOn([d.rpcUrl]).faucet).toBeUndefined();
    const [a, b] = await six.derivation.deriveAddresses(XPUB, 700, 2, 0);
    const start = Number(BigInt(await d.rpc<string>("eth_blockNumber"))) + 1;
    const paid = await six.faucet?.pay(a as string, "USDC", 2_500_000n);
    await eighteen.faucet?.pay(b as string, "USDT", 1_000_000n);
    const end = await d.mine(1);
    expect(paid?.from).toBe(d.faucetAddress.toLowerCase());
    const transfers = flat(await readAll(six, start, end));
    expect(transfers.map((t) => [t.txHash, t.currency, t.to, t.units, t.decimals])).toEqual([
      [paid?.txHash, "USDC", a, 2_500_000n, 6],
      [transfers[1]?.txHash, "USDT", b, 10n ** 18n, 18],
    ]);
  });
});

describe("balances and call data for money out", () => {
  it("reads native and token balances and encodes transfer() as viem does, gas estimated by the node", async () => {
    const d = devnet();
    const chain = chainOn([d.rpcUrl]);
    const nonces = chain.nonces;
    if (!nonces) throw new Error("an EVM chain sends by nonce");
    const [holder] = await chain.derivation.deriveAddresses(XPUB, 720, 1, 0);
    const to = holder as string;
    const usdc = d.usdcContract.toLowerCase();
    const usdt18 = d.usdt18Contract.toLowerCase();
    expect(await nonces.tokenBalance(usdc, to)).toBe(0n);
    await send(usdc, to, 1_234_567n);
    await send(usdt18, to, 5n * 10n ** 17n + 3n);
    await d.rpc("anvil_setBalance", [to, "0x1234"]);
    await d.mine(1);
    expect(await nonces.tokenBalance(usdc, to)).toBe(1_234_567n);
    expect(await nonces.tokenBalance(usdt18, to)).toBe(5n * 10n ** 17n + 3n);
    expect(await nonces.nativeBalance(to)).toBe(0x1234n);

    const data = nonces.transferData(d.faucetAddress.toLowerCase(), 77n);
    const { encodeFunctionData, parseAbi } = await import("viem");
    expect(data).toBe(
      encodeFunctionData({
        abi: parseAbi(["function transfer(address to, uint256 value)"]),
        args: [getAddress(d.faucetAddress), 77n],
      }).toLowerCase(),
    );
    const client = createPublicClient({ transport: http(d.rpcUrl) });
    const viemGas = await client.estimateGas({
      account: getAddress(to),
      to: getAddress(usdc),
      data: data as Hex,
    });
    expect(await nonces.estimateGas({ from: to, to: usdc, data })).toBe(viemGas);
    await expect(nonces.tokenBalance(to, to)).rejects.toThrow(/balanceOf/);
  });
});
