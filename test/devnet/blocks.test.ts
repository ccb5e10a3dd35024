import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Devnet } from "@stablegate/devnet";
import { freshDevnet, newAccount, post, tronWebFor } from "./helpers.js";
import type { TronWeb } from "tronweb";

let devnet: Devnet;
let tw: TronWeb;

beforeAll(async () => {
  devnet = await freshDevnet({ solidifyAfter: 4 });
  tw = tronWebFor(devnet);
});
afterAll(() => devnet.close());

type BlockJson = {
  blockID: string;
  block_header: {
    raw_data: { number?: number; parentHash: string; timestamp: number; witness_address: string };
  };
  transactions?: unknown[];
};

describe("devnet blocks", () => {
  it("serves the head through getCurrentBlock and blocks by number and hash through getBlock", async () => {
    const head = devnet.mine(3);
    const current = (await tw.trx.getCurrentBlock()) as unknown as BlockJson;
    expect(current.block_header.raw_data.number).toBe(head);
    // blockID starts with the 8-byte big-endian number, as java-tron's
    expect(current.blockID.slice(0, 16)).toBe(head.toString(16).padStart(16, "0"));
    expect(current.blockID).toMatch(/^[0-9a-f]{64}$/);
    const byNum = (await tw.trx.getBlock(head - 1)) as unknown as BlockJson;
    expect(byNum.block_header.raw_data.number).toBe(head - 1);
    expect(current.block_header.raw_data.parentHash).toBe(byNum.blockID);
    const byHash = (await tw.trx.getBlock(byNum.blockID)) as unknown as BlockJson;
    expect(byHash.blockID).toBe(byNum.blockID);
    await expect(tw.trx.getBlock(head + 50)).rejects.toThrow("Block not found");
  });

  it("answers getblockbylimitnext with the blocks of [startNum, endNum)", async () => {
    devnet.mine(5);
    const r = await post<{ block: BlockJson[] }>(devnet, "/wallet/getblockbylimitnext", {
      startNum: 2,
      endNum: 6,
    });
    expect(r.block.map((b) => b.block_header.raw_data.number)).toEqual([2, 3, 4, 5]);
    const range = (await tw.trx.getBlockRange(1, 3)) as unknown as BlockJson[];
    expect(range).toHaveLength(3);
    expect(await post(devnet, "/wallet/getblockbylimitnext", { startNum: 5, endNum: 2 })).toEqual({});
  });

  it("keeps the solidified head exactly solidifyAfter blocks behind the head", async () => {
    const head = devnet.mine(2);
    const solid = (await tw.trx.getConfirmedCurrentBlock()) as unknown as BlockJson;
    expect(solid.block_header.raw_data.number).toBe(head - 4);
    const info = (await (await fetch(devnet.url + "/devnet/info")).json()) as {
      head: number;
      solidified: number;
    };
    expect(info).toMatchObject({ head, solidified: head - 4 });
    // blocks above the solidified head do not exist for the solidity API
    expect(await post(devnet, "/walletsolidity/getblockbynum", { num: head })).toEqual({});
    expect(await post(devnet, "/walletsolidity/getblockbynum", { num: head - 4 })).toMatchObject({
      block_header: { raw_data: { number: head - 4 } },
    });
  });

  it("serves wallet/getblock with detail false as the block without its transactions", async () => {
    const a = await newAccount();
    // /devnet/fund mines the block holding the funding transaction
    const { block } = await post<{ block: number }>(devnet, "/devnet/fund", { address: a.base58, trx: "2" });
    const head = block;
    const full = await post<BlockJson>(devnet, "/wallet/getblock", { id_or_num: String(head), detail: true });
    expect(full.transactions?.length).toBe(1);
    const header = await post<BlockJson>(devnet, "/wallet/getblock", {
      id_or_num: String(head),
      detail: false,
    });
    expect(header.transactions).toBeUndefined();
    expect(header.blockID).toBe(full.blockID);
    expect(header.block_header).toEqual(full.block_header);
    // java-tron's default is detail false; a blockID works as well as a number
    expect(await post(devnet, "/wallet/getblock", { id_or_num: full.blockID })).toEqual(header);
    expect(await post(devnet, "/wallet/getblock", { id_or_num: String(head + 5), detail: false })).toEqual(
      {},
    );
    // the solidity API knows only solidified blocks
    expect(
      await post(devnet, "/walletsolidity/getblock", { id_or_num: String(head), detail: false }),
    ).toEqual({});
    devnet.mine(4);
    expect(
      await post(devnet, "/walletsolidity/getblock", { id_or_num: String(head), detail: false }),
    ).toEqual(header);
  });

  it("omits default fields and renders addresses as base58 when visible=true", async () => {
    const hexBlock = await post<BlockJson>(devnet, "/wallet/getnowblock");
    expect(hexBlock.block_header.raw_data.witness_address).toMatch(/^41[0-9a-f]{40}$/);
    expect(hexBlock.transactions).toBeUndefined();
    const visible = await post<BlockJson>(devnet, "/wallet/getnowblock", { visible: true });
    expect(visible.block_header.raw_data.witness_address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const genesis = await post<BlockJson>(devnet, "/wallet/getblockbynum", { num: 0 });
    expect(genesis.block_header.raw_data.number).toBeUndefined();
    expect(await post(devnet, "/wallet/gettransactioninfobyblocknum", { num: 1 })).toEqual([]);
  });
});
