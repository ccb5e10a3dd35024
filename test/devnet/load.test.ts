import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TronWeb } from "tronweb";
import type { Devnet } from "@stablegate/devnet";
import { freshDevnet, newAccount, post, tronWebFor, type Info } from "./helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

let devnet: Devnet;
let tw: TronWeb;

beforeAll(async () => {
  devnet = await freshDevnet();
  tw = tronWebFor(devnet);
});
afterAll(() => devnet.close());

describe("devnet load", () => {
  it("appends blocks whose tx infos carry the requested USDT Transfer logs, with balances to match", async () => {
    const a = await newAccount();
    const b = await newAccount();
    const r = await post<{ from: number; to: number; transactions: number }>(devnet, "/devnet/load", {
      blocks: 6,
      tx_per_block: 40,
      usdt_per_block: 15,
      to_addresses: [a.base58, b.hex],
      usdt_amount: "2.5",
    });
    expect(r.to - r.from).toBe(5);
    expect(r.transactions).toBe(240);
    const usdtEvm = tw.address.toHex(devnet.usdtContract).toLowerCase().slice(2);
    const targets = new Set([a.hex.slice(2), b.hex.slice(2)]);
    let toTargets = 0n;
    for (let n = r.from; n <= r.to; n++) {
      const infos = await post<Info[]>(devnet, "/wallet/gettransactioninfobyblocknum", { num: n });
      expect(infos.length).toBeGreaterThanOrEqual(40);
      const usdtLogs = infos
        .flatMap((i) => i.log ?? [])
        .filter(
          (l) =>
            l.address === usdtEvm &&
            l.topics[0] === TRANSFER_TOPIC &&
            targets.has((l.topics[2] as string).slice(24)),
        );
      expect(usdtLogs).toHaveLength(15);
      for (const l of usdtLogs) toTargets += BigInt("0x" + l.data);
      for (const i of infos) expect(i.blockNumber).toBe(n);
      const block = await post<{ transactions: { txID: string; raw_data_hex: string }[] }>(
        devnet,
        "/wallet/getblockbynum",
        { num: n },
      );
      expect(block.transactions.map((t) => t.txID)).toEqual(infos.map((i) => i.id));
    }
    expect(toTargets).toBe(6n * 15n * 2_500_000n);
    expect((await usdtBalance(devnet, a.base58)) + (await usdtBalance(devnet, b.base58))).toBe(toTargets);
    // generated transactions are well-formed: txID = sha256(raw_data_hex), raw_data decodes
    const tx = (await post(devnet, "/wallet/getblockbynum", { num: r.to })) as {
      transactions: { txID: string; raw_data_hex: string; raw_data: { contract: { type: string }[] } }[];
    };
    const t0 = tx.transactions[0] as (typeof tx.transactions)[number];
    const { createHash } = await import("node:crypto");
    expect(createHash("sha256").update(Buffer.from(t0.raw_data_hex, "hex")).digest("hex")).toBe(t0.txID);
    expect(["TriggerSmartContract", "TransferContract"]).toContain(t0.raw_data.contract[0]?.type);
  });
});
