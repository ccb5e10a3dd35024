import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TronWeb } from "tronweb";
import type { Devnet } from "@stablegate/devnet";
import { freshDevnet, fund, newAccount, post, postStatus, tronWebFor, type Info } from "./helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

let devnet: Devnet;
let tw: TronWeb;

beforeAll(async () => {
  devnet = await freshDevnet({ solidifyAfter: 5 });
  tw = tronWebFor(devnet);
});
afterAll(() => devnet.close());

type DevnetInfo = {
  head: number;
  solidified: number;
  usdt_contract: string;
  faucet_address: string;
  pending: number;
  requests: { total: number; by_path: Record<string, number> };
};

async function devnetInfo(): Promise<DevnetInfo> {
  return (await (await fetch(devnet.url + "/devnet/info")).json()) as DevnetInfo;
}

describe("devnet control endpoints", () => {
  it("reports the chain and counts node requests in /devnet/info until reset", async () => {
    await post(devnet, "/devnet/requests/reset");
    await tw.trx.getCurrentBlock();
    await tw.trx.getCurrentBlock();
    await tw.trx.getConfirmedCurrentBlock();
    const i = await devnetInfo();
    expect(i.usdt_contract).toBe(devnet.usdtContract);
    expect(i.faucet_address).toBe(devnet.faucetAddress);
    expect(i.requests.by_path).toEqual({ "/wallet/getnowblock": 2, "/walletsolidity/getnowblock": 1 });
    expect(i.requests.total).toBe(3);
    await post(devnet, "/devnet/requests/reset");
    expect((await devnetInfo()).requests.total).toBe(0);
  });

  it("mines on demand and funds through real faucet transactions", async () => {
    const before = (await devnetInfo()).head;
    const m = await post<{ head: number; blocks: unknown[] }>(devnet, "/devnet/mine", { blocks: 3 });
    expect(m.head).toBe(before + 3);
    const a = await newAccount();
    const f = await post<{ txids: string[]; block: number }>(devnet, "/devnet/fund", {
      address: a.base58,
      trx: "12.5",
      usdt_units: "2500000",
    });
    expect(f.txids).toHaveLength(2);
    expect(await tw.trx.getUnconfirmedBalance(a.base58)).toBe(12_500_000);
    expect(await usdtBalance(devnet, a.base58)).toBe(2_500_000n);
    const tx = (await post(devnet, "/wallet/gettransactionbyid", { value: f.txids[0] })) as {
      raw_data?: unknown;
    };
    expect(tx.raw_data).toBeDefined();
    expect((await postStatus(devnet, "/devnet/fund", { address: "nope", trx: "1" })).status).toBe(400);
    expect((await postStatus(devnet, "/devnet/fund", { address: a.base58, trx: "1.0000001" })).status).toBe(
      400,
    );
  });

  it("forks away unsolidified blocks: transactions gone, balances reverted, new hashes", async () => {
    const to = await newAccount();
    await fund(devnet, to.base58, "5");
    const usdt = await tw.contract().at(devnet.usdtContract);
    const txid = (await usdt.transfer(to.base58, 777).send()) as string;
    devnet.mine(1);
    const head = (await devnetInfo()).head;
    const oldIds = await Promise.all(
      [head - 1, head].map(
        async (n) =>
          ((await post(devnet, "/wallet/getblockbynum", { num: n })) as { blockID: string }).blockID,
      ),
    );
    expect(((await post(devnet, "/wallet/gettransactioninfobyid", { value: txid })) as Info).id).toBe(txid);
    expect(await usdtBalance(devnet, to.base58)).toBe(777n);

    const r = await post<{ head: number; dropped: { transactions: string[] }[] }>(devnet, "/devnet/fork", {
      depth: 2,
    });
    expect(r.head).toBe(head);
    expect(r.dropped.flatMap((d) => d.transactions)).toContain(txid);
    expect(await post(devnet, "/wallet/gettransactioninfobyid", { value: txid })).toEqual({});
    expect(await post(devnet, "/wallet/gettransactionbyid", { value: txid })).toEqual({});
    expect(await usdtBalance(devnet, to.base58)).toBe(0n);
    const newIds = await Promise.all(
      [head - 1, head].map(
        async (n) =>
          ((await post(devnet, "/wallet/getblockbynum", { num: n })) as { blockID: string }).blockID,
      ),
    );
    expect(newIds[0]).not.toBe(oldIds[0]);
    expect(newIds[1]).not.toBe(oldIds[1]);
    const parent = (await post(devnet, "/wallet/getblockbynum", { num: head - 2 })) as { blockID: string };
    const first = (await post(devnet, "/wallet/getblockbynum", { num: head - 1 })) as {
      block_header: { raw_data: { parentHash: string } };
    };
    expect(first.block_header.raw_data.parentHash).toBe(parent.blockID);
    // the funding (solidified) survives
    expect(await tw.trx.getUnconfirmedBalance(to.base58)).toBe(5_000_000);
    const tooDeep = await postStatus(devnet, "/devnet/fork", { depth: 6 });
    expect(tooDeep.status).toBe(400);
  });

  it("injects 429, 5xx and malformed replies on the node API only, and clears them with {}", async () => {
    await post(devnet, "/devnet/faults", { rate_429: 1, paths: ["/wallet/getnowblock"] });
    expect((await fetch(devnet.url + "/wallet/getnowblock")).status).toBe(429);
    expect((await fetch(devnet.url + "/wallet/getblockbynum?num=1")).status).toBe(200);
    expect((await fetch(devnet.url + "/devnet/info")).status).toBe(200);

    await post(devnet, "/devnet/faults", { rate_500: 1, count: 2 });
    expect((await fetch(devnet.url + "/wallet/getnowblock")).status).toBe(500);
    expect((await fetch(devnet.url + "/walletsolidity/getnowblock")).status).toBe(500);
    expect((await fetch(devnet.url + "/wallet/getnowblock")).status).toBe(200);

    await post(devnet, "/devnet/faults", { rate_malformed: 1 });
    const res = await fetch(devnet.url + "/wallet/getnowblock");
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(() => JSON.parse(text)).toThrow();
    // axios hands TronWeb the unparseable text as is
    expect(typeof (await tw.trx.getCurrentBlock())).toBe("string");

    await post(devnet, "/devnet/faults", {});
    expect(JSON.parse(await (await fetch(devnet.url + "/wallet/getnowblock")).text())).toHaveProperty(
      "blockID",
    );
    expect((await postStatus(devnet, "/devnet/faults", { rate_429: 2 })).status).toBe(400);
  });

  it("adds latency when asked", async () => {
    await post(devnet, "/devnet/faults", { latency_ms: 150 });
    const t = performance.now();
    await fetch(devnet.url + "/wallet/getnowblock");
    expect(performance.now() - t).toBeGreaterThanOrEqual(140);
    await post(devnet, "/devnet/faults", {});
  });

  it("creates further TRC20 tokens whose transfers log their own contract address", async () => {
    const created = await post<{ address: string; decimals: number }>(devnet, "/devnet/tokens", {
      name: "Devnet Dollar",
      symbol: "DUSD",
      decimals: 2,
    });
    expect(TronWeb.isAddress(created.address)).toBe(true);
    expect(created.address).not.toBe(devnet.usdtContract);
    const token = await tw.contract().at(created.address);
    expect(await token.symbol().call()).toBe("DUSD");
    const to = await newAccount();
    const txid = (await token.transfer(to.base58, 1234).send()) as string;
    devnet.mine(6);
    const i = (await tw.trx.getTransactionInfo(txid)) as unknown as Info;
    expect(i.receipt.result).toBe("SUCCESS");
    expect(i.log?.[0]?.address).toBe(tw.address.toHex(created.address).toLowerCase().slice(2));
    expect(i.log?.[0]?.address).not.toBe(tw.address.toHex(devnet.usdtContract).toLowerCase().slice(2));
    expect((await postStatus(devnet, "/devnet/tokens", { name: "x", symbol: "", decimals: 6 })).status).toBe(
      400,
    );
  });
});

describe("devnet persistence", () => {
  it("keeps the chain across restarts with stateFile", async () => {
    const dir = mkdtempSync(join(tmpdir(), "devnet-state-"));
    const file = join(dir, "chain.json");
    try {
      const first = await freshDevnet({ stateFile: file });
      const a = await newAccount();
      await post(first, "/devnet/fund", { address: a.base58, trx: "3" });
      const head = first.mine(2);
      await first.close();
      const second = await freshDevnet({ stateFile: file });
      expect(second.usdtContract).toBe(first.usdtContract);
      const tw2 = tronWebFor(second);
      expect(await tw2.trx.getUnconfirmedBalance(a.base58)).toBe(3_000_000);
      expect(
        ((await tw2.trx.getCurrentBlock()) as unknown as { block_header: { raw_data: { number: number } } })
          .block_header.raw_data.number,
      ).toBe(head);
      expect((await tw2.trx.sendTrx(a.base58, 1_000_000)).result).toBe(true);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("derives the same USDT address from the same faucet key and another from another key", async () => {
    const a = await freshDevnet();
    const b = await freshDevnet({ faucetKey: "11".repeat(32) });
    expect(a.usdtContract).toBe(devnet.usdtContract);
    expect(b.usdtContract).not.toBe(devnet.usdtContract);
    await a.close();
    await b.close();
  });
});
