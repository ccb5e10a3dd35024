/**
 * How fast an EVM chain's range is read (src/chains/evm/): Anvil (the devnet's tokens) holding
 * 10,000 blocks with 20,000 token transfers (USDT, USDC and the 18-decimal token; 5,000 of them to
 * derived deposit addresses, the rest to other addresses), read through readBlocks from the first
 * block to the last as a catching-up scanner does. Prints blocks/s and transfers/s, and the RPC
 * calls the read made, counted by a real HTTP stand-in in front of Anvil, with 10 and with 10,000
 * watched addresses (watched addresses never appear in a call: the counts are equal). Baseline in
 * the same run: the same range read one block at a time (eth_getBlockByNumber + eth_getLogs per
 * block), as a scanner without ranges would.
 *
 *   npx tsx bench/evm-scan.ts [blocks=10000] [transfers=20000] [logRange=1000]
 */
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { startEvmDevnet } from "@stablegate/devnet";
import type { ReadBlock } from "../src/chains/chain.js";
import { createEvmChain } from "../src/chains/evm/evm-chain.js";
import { createRpcPool } from "../src/chains/evm/rpc-pool.js";
import { createLogger } from "../src/logger.js";
import { startStandIn } from "../test/chains/evm-stand-in.js";

const BLOCKS = Number(process.argv[2] ?? 10_000);
const TRANSFERS = Number(process.argv[3] ?? 20_000);
const LOG_RANGE = Number(process.argv[4] ?? 1000);
const MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC)).derive("m/44'/60'/0'").publicExtendedKey;
const log = createLogger({ level: "silent" });
const word = (v: string | bigint) =>
  (typeof v === "string" ? v.replace(/^0x/, "") : v.toString(16)).padStart(64, "0");

const devnet = await startEvmDevnet({ port: 0, blockTimeMs: 0, finalityDepth: 64 });
try {
  const contracts = [
    { currency: "USDT" as const, contract: devnet.usdtContract.toLowerCase() },
    { currency: "USDC" as const, contract: devnet.usdcContract.toLowerCase() },
    { currency: "USDT" as const, contract: devnet.usdt18Contract.toLowerCase() },
  ];
  const makeChain = (url: string) =>
    createEvmChain({
      id: "ethereum",
      network: "devnet",
      rpc: createRpcPool([url], { log }),
      contracts,
      finality: "finalized",
      maxRange: LOG_RANGE,
    });
  const ours = await makeChain(devnet.rpcUrl).derivation.deriveAddresses(xpub, 0, 10_000, 0);

  // Populate: per block, TRANSFERS / BLOCKS transfers from the faucet (an unlocked Anvil account,
  // explicit nonces) in one JSON-RPC batch, then evm_mine.
  const started = performance.now();
  const perBlock = TRANSFERS / BLOCKS;
  const first = Number(BigInt(await devnet.rpc<string>("eth_blockNumber"))) + 1;
  let sent = 0;
  let nonce = Number(
    BigInt(await devnet.rpc<string>("eth_getTransactionCount", [devnet.faucetAddress, "pending"])),
  );
  let batch: unknown[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const res = await fetch(devnet.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(batch),
    });
    const replies = (await res.json()) as { error?: { message: string } }[];
    const failed = replies.find((r) => r.error);
    if (failed) throw new Error(`populating failed: ${failed.error?.message}`);
    batch = [];
  };
  for (let b = 0; b < BLOCKS; b++) {
    const target = Math.round((b + 1) * perBlock);
    for (; sent < target; sent++) {
      const token = contracts[sent % 3]?.contract as string;
      const to =
        sent % 4 === 0
          ? (ours[(sent / 4) % ours.length] as string)
          : "0x" + word(BigInt(sent + 1) * 7919n).slice(-40);
      const units = token === contracts[2]?.contract ? 10n ** 12n * BigInt(sent + 1) : BigInt(sent + 1);
      batch.push({
        jsonrpc: "2.0",
        id: batch.length,
        method: "eth_sendTransaction",
        params: [
          {
            from: devnet.faucetAddress,
            to: token,
            data: "0xa9059cbb" + word(to) + word(units),
            gas: "0x20000",
            nonce: "0x" + (nonce++).toString(16),
          },
        ],
      });
    }
    await flush();
    await devnet.mine();
  }
  const last = Number(BigInt(await devnet.rpc<string>("eth_blockNumber")));
  console.log(
    `populated blocks ${first}..${last} with ${sent} transfers in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  async function scan(
    watched: number,
  ): Promise<{ seconds: number; transfers: number; toOurs: number; calls: Record<string, number> }> {
    const standIn = await startStandIn(devnet.rpcUrl);
    const chain = makeChain(standIn.url);
    try {
      const watchedSet = new Set(ours.slice(0, watched));
      await Promise.all(
        chain.readBlocks(first, first, { signal: new AbortController().signal, log, concurrency: 2 }),
      );
      standIn.calls.length = 0;
      const t0 = performance.now();
      const blocks = await Promise.all(
        chain.readBlocks(first, last, { signal: new AbortController().signal, log, concurrency: 2 }),
      );
      const seconds = (performance.now() - t0) / 1000;
      checkContinuity(blocks);
      const all = blocks.flatMap((b) => b.transfers);
      const calls: Record<string, number> = {};
      for (const m of standIn.calls) calls[m] = (calls[m] ?? 0) + 1;
      return {
        seconds,
        transfers: all.length,
        toOurs: all.filter((t) => watchedSet.has(t.to)).length,
        calls,
      };
    } finally {
      await chain.close();
      await standIn.close();
    }
  }

  function checkContinuity(blocks: ReadBlock[]): void {
    for (let i = 1; i < blocks.length; i++) {
      if (blocks[i]?.header.parentHash !== blocks[i - 1]?.header.hash)
        throw new Error(`block ${first + i} does not link`);
    }
  }

  const n = last - first + 1;
  for (const watched of [10, 10_000]) {
    const r = await scan(watched);
    if (r.transfers !== sent) throw new Error(`read ${r.transfers} transfers, sent ${sent}`);
    const parts = Math.ceil(n / LOG_RANGE);
    console.log(
      `readBlocks, ${watched} watched: ${n} blocks, ${r.transfers} transfers (${r.toOurs} to watched addresses) in ${r.seconds.toFixed(2)} s = ` +
        `${Math.round(n / r.seconds)} blocks/s, ${Math.round(r.transfers / r.seconds)} transfers/s; ` +
        `HTTP requests ${JSON.stringify(r.calls)} = ${(standInTotal(r.calls) / parts).toFixed(1)} per ${LOG_RANGE}-block range`,
    );
  }

  // Baseline: block by block, a header and a getLogs per block (3,000 blocks, extrapolated).
  const sample = Math.min(n, 3000);
  const t0 = performance.now();
  let seen = 0;
  for (let b = first; b < first + sample; b++) {
    const hex = "0x" + b.toString(16);
    await devnet.rpc("eth_getBlockByNumber", [hex, false]);
    const logs = await devnet.rpc<unknown[]>("eth_getLogs", [
      { fromBlock: hex, toBlock: hex, address: contracts.map((c) => c.contract), topics: [] },
    ]);
    seen += logs.length;
  }
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    `baseline, a block at a time: ${sample} blocks, ${seen} logs in ${seconds.toFixed(2)} s = ${Math.round(sample / seconds)} blocks/s (${2 * sample} HTTP requests)`,
  );
} finally {
  await devnet.close();
}

function standInTotal(calls: Record<string, number>): number {
  return Object.values(calls).reduce((a, b) => a + b, 0);
}
