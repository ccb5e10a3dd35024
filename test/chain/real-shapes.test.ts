// The scanner's parsing over real java-tron responses (mainnet, Nile, Shasta) saved by others in
// test/fixtures/tron-real (public chain data; its SOURCES.md names every origin). ground-truth.json was
// computed from the same files by an independent script (ground-truth.mjs, no project code).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  extractUsdtTransfers,
  infosMatchBlock,
  readHeader,
  readHeaderOnly,
  type BlockHeaderInfo,
} from "../../src/chain/extract-transfers.js";
import { hexToBase58, toHex } from "@stablegate/tron/address";
import type { BlockJson, TransactionInfo } from "@stablegate/tron/node-types";

const DIR = resolve(import.meta.dirname, "../fixtures/tron-real");
const USDT: Record<string, string> = {
  mainnet: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  nile: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf",
  shasta: "TG3XXyExBkPp9nzdajDZsozEu4BkaSJozs",
  testnet: "TG3XXyExBkPp9nzdajDZsozEu4BkaSJozs",
};

interface Truth {
  network: string;
  usdt_contract: string;
  transaction_infos: number;
  transfers: { tx_hash: string; log_index: number; from: string; to: string; value: string }[];
  failed: { tx_hash: string }[];
}

function read<T>(file: string): T {
  return JSON.parse(readFileSync(join(DIR, file), "utf8")) as T;
}

function networkOf(file: string): string {
  const n = Object.keys(USDT).find((k) => file.includes(`-${k}-`));
  if (!n) throw new Error(`no network in ${file}`);
  return n;
}

const evmOf = (base58: string) => toHex(base58).slice(2);
const isBase58 = (s: string) => /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(s);

/**
 * The scanner asks java-tron with visible=false (node-client), which prints log and contract addresses
 * as hex. A response saved with visible=true carries them as base58; this is the same response as the
 * node gives the scanner.
 */
function asRequested(info: TransactionInfo): TransactionInfo {
  const log = info.log?.map((l) => (isBase58(l.address) ? { ...l, address: evmOf(l.address) } : l));
  const contract = info.contract_address;
  return {
    ...info,
    ...(log ? { log } : {}),
    ...(contract && isBase58(contract) ? { contract_address: toHex(contract) } : {}),
  };
}

function headerFor(infos: TransactionInfo[]): BlockHeaderInfo {
  return {
    number: infos[0]?.blockNumber ?? 0,
    hash: "00".repeat(32),
    parentHash: "00".repeat(32),
    timestamp: infos[0]?.blockTimeStamp ?? 0,
    txIds: undefined,
    mayHaveLogs: true,
  };
}

describe("the scanner's parsing over real transaction infos", () => {
  it("finds the folder of real responses next to the repository", () => {
    expect(existsSync(join(DIR, "ground-truth.json")), `${DIR} is missing`).toBe(true);
  });

  const truth = existsSync(join(DIR, "ground-truth.json"))
    ? read<Record<string, Truth>>("ground-truth.json")
    : {};
  const files = existsSync(DIR)
    ? readdirSync(DIR).filter((f) =>
        /^(gettransactioninfobyblocknum|gettransactioninfobyid)-.*\.json$/.test(f),
      )
    : [];

  it("covers every transaction-info file the ground truth covers", () => {
    expect(files.length).toBeGreaterThanOrEqual(14);
    expect(files.sort()).toEqual(Object.keys(truth).sort());
  });

  for (const file of files) {
    it(`finds exactly the USDT transfers of ${file}`, () => {
      const body = read<TransactionInfo | TransactionInfo[]>(file);
      const infos = (Array.isArray(body) ? body : [body]).map(asRequested);
      const t = truth[file] as Truth;
      expect(infos).toHaveLength(t.transaction_infos);
      const usdt = USDT[networkOf(file)] as string;
      expect(usdt).toBe(t.usdt_contract);
      const found = extractUsdtTransfers(headerFor(infos), infos, evmOf(usdt)).map((c) => ({
        tx_hash: c.txHash,
        log_index: c.logIndex,
        from: hexToBase58("41" + c.fromEvm),
        to: hexToBase58("41" + c.toEvm),
        value: c.amount.toString(),
      }));
      expect(found).toEqual(t.transfers);
      // nothing from a failed transaction, whatever its logs say
      for (const f of t.failed) expect(found.map((x) => x.tx_hash)).not.toContain(f.tx_hash);
    });
  }

  it("reads nothing from base58 log addresses, which is why the node client always asks visible=false", () => {
    const info = read<TransactionInfo>("gettransactioninfobyid-mainnet-661f1df8-usdt-visible.json");
    expect(isBase58(info.log?.[0]?.address ?? "")).toBe(true);
    expect(extractUsdtTransfers(headerFor([info]), [info], evmOf(USDT.mainnet as string))).toEqual([]);
  });

  it("checks that a block's infos belong to it by number and timestamp when only the header is known", () => {
    const infos = read<TransactionInfo[]>("gettransactioninfobyblocknum-nile-71532743.json");
    const header = headerFor(infos);
    expect(infosMatchBlock(header, infos)).toBe(true);
    expect(infosMatchBlock({ ...header, timestamp: header.timestamp + 3000 }, infos)).toBe(false);
  });
});

describe("the scanner's block reading over real blocks", () => {
  const calls = existsSync(join(DIR, "block-usdt-calls.json"))
    ? read<Record<string, { blocks: number[]; transactions: number; direct_usdt_calls: unknown[] }>>(
        "block-usdt-calls.json",
      )
    : {};
  const files = Object.keys(calls);

  it("has the real blocks to read", () => {
    expect(files.length).toBeGreaterThanOrEqual(8);
  });

  for (const file of files) {
    it(`reads the header and transaction ids of ${file}`, () => {
      const body = read<BlockJson | { block: BlockJson[] }>(file);
      const blocks = "block" in body ? body.block : [body];
      const expected = calls[file] as (typeof calls)[string];
      expect(blocks.map((b) => b.block_header.raw_data.number)).toEqual(expected.blocks);
      for (const b of blocks) {
        const h = readHeader(b);
        const txs = b.transactions ?? [];
        expect(h.number).toBe(b.block_header.raw_data.number);
        expect(h.hash).toBe(b.blockID);
        expect(h.parentHash).toBe(b.block_header.raw_data.parentHash);
        expect(h.txIds).toEqual(txs.map((t) => t.txID));
        // a block that can hold a USDT log is never skipped
        const contractCalls = txs.some((t) => t.raw_data.contract[0]?.type === "TriggerSmartContract");
        if (contractCalls || expected.direct_usdt_calls.length > 0) expect(h.mayHaveLogs).toBe(true);
        if (txs.length === 0) {
          // java-tron omits `transactions` from an empty block and gives it an all-zero txTrieRoot
          expect(b).not.toHaveProperty("transactions");
          expect(h.mayHaveLogs).toBe(false);
          expect(readHeaderOnly(b).mayHaveLogs).toBe(false);
        }
      }
    });
  }
});
