import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createNodeClient, TronNodeError } from "@stablegate/tron/node-client";
import type { NodeClient, NodeRequestEvent } from "@stablegate/tron/node-client";
import { headerOf } from "@stablegate/tron/node-types";
import { hexToBase58 } from "@stablegate/tron/address";

type Seen = { path: string; headers: IncomingMessage["headers"]; body: Record<string, unknown> };
type Handler = (path: string, body: Record<string, unknown>, res: ServerResponse) => void;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** A real HTTP server standing in for java-tron; each test says how it answers. */
async function fakeNode(handler: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      seen.push({ path: req.url ?? "", headers: req.headers, body });
      handler(req.url ?? "", body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function json(res: ServerResponse, body: unknown, status = 200) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

function client(url: string, extra: Partial<Parameters<typeof createNodeClient>[0]> = {}): NodeClient {
  const c = createNodeClient({ baseUrl: url, timeoutMs: 2000, ...extra });
  cleanups.push(() => c.close());
  return c;
}

async function failure(p: Promise<unknown>): Promise<TronNodeError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TronNodeError);
  return err as TronNodeError;
}

const BLOCK = {
  blockID: "0000000000000064" + "ab".repeat(24),
  block_header: {
    raw_data: { number: 100, parentHash: "0000000000000063" + "cd".repeat(24), timestamp: 1_700_000_000_000 },
  },
};
const OWNER = "41" + "11".repeat(20);
const USDT = "41" + "a6".repeat(20);

describe("node client", () => {
  it("parses blocks, transaction infos, accounts and parameters, and maps java-tron's {} to null or []", async () => {
    const node = await fakeNode((path, body, res) => {
      if (path === "/wallet/getnowblock" || path === "/walletsolidity/getnowblock") return json(res, BLOCK);
      if (path === "/wallet/getblockbynum") return json(res, body.num === 100 ? BLOCK : {});
      if (path === "/wallet/getblockbylimitnext")
        return json(res, body.startNum === 100 ? { block: [BLOCK] } : {});
      if (path === "/wallet/gettransactioninfobyblocknum") {
        return json(
          res,
          body.num === 100 ? [{ id: "aa", blockNumber: 100, blockTimeStamp: 1, receipt: {} }] : {},
        );
      }
      if (path === "/wallet/gettransactionbyid") return json(res, {});
      if (path === "/walletsolidity/gettransactioninfobyid")
        return json(res, { id: body.value, blockNumber: 5, receipt: {} });
      if (path === "/wallet/getaccount")
        return json(res, body.address === OWNER ? { address: OWNER, balance: 7 } : {});
      if (path === "/wallet/getaccountresource") return json(res, { EnergyLimit: 10 });
      if (path === "/wallet/getchainparameters") {
        return json(res, {
          chainParameter: [{ key: "getEnergyFee", value: 100 }, { key: "getAllowTvmTransferTrc10" }],
        });
      }
      if (path === "/wallet/getcontract") return json(res, { contract_address: body.value });
      if (path === "/wallet/triggerconstantcontract") {
        return json(res, {
          result: { result: true },
          energy_used: 900,
          constant_result: ["0".repeat(63) + "6"],
        });
      }
      if (path === "/wallet/estimateenergy")
        return json(res, { result: { result: true }, energy_required: 64285 });
      if (path === "/wallet/broadcasttransaction" || path === "/wallet/broadcasthex") {
        return json(res, { result: true, txid: "ff".repeat(32) });
      }
      json(res, { Error: "unexpected " + path }, 404);
    });
    const c = client(node.url);
    expect(headerOf(await c.getNowBlock())).toEqual({
      number: 100,
      blockID: BLOCK.blockID,
      parentHash: BLOCK.block_header.raw_data.parentHash,
      timestamp: 1_700_000_000_000,
    });
    expect((await c.getSolidifiedNowBlock()).blockID).toBe(BLOCK.blockID);
    expect((await c.getBlockByNum(100))?.blockID).toBe(BLOCK.blockID);
    expect(await c.getBlockByNum(101)).toBeNull();
    expect(await c.getBlockByLimitNext(100, 101)).toHaveLength(1);
    expect(await c.getBlockByLimitNext(200, 201)).toEqual([]);
    expect(await c.getTransactionInfoByBlockNum(100)).toHaveLength(1);
    expect(await c.getTransactionInfoByBlockNum(101)).toEqual([]);
    expect(await c.getTransactionById("0x" + "aa".repeat(32))).toBeNull();
    expect((await c.getTransactionInfoById("bb".repeat(32), { solidified: true }))?.blockNumber).toBe(5);
    expect(await c.getAccount(hexToBase58(OWNER))).toEqual({ address: OWNER, balance: 7 });
    expect(await c.getAccount("41" + "99".repeat(20))).toBeNull();
    expect(await c.getAccountResource(OWNER)).toEqual({ EnergyLimit: 10 });
    expect(await c.getChainParameters()).toEqual({ getEnergyFee: 100, getAllowTvmTransferTrc10: 0 });
    expect(await c.getContract(hexToBase58(USDT))).toEqual({ contract_address: USDT });
    const call = { owner: OWNER, contract: hexToBase58(USDT), data: "0x313ce567" };
    expect((await c.triggerConstantContract(call)).constant_result).toEqual(["0".repeat(63) + "6"]);
    expect(await c.estimateEnergy(call)).toBe(64285);
    expect(await c.broadcastHex("0a02")).toEqual({ result: true, txid: "ff".repeat(32) });
    const tx = { txID: "ff".repeat(32), raw_data_hex: "0a02", raw_data: {} as never, signature: ["00"] };
    expect((await c.broadcastTransaction(tx)).txid).toBe("ff".repeat(32));

    // requests are JSON POSTs with hex addresses and unprefixed hex ids
    const byPath = (p: string) => node.seen.find((s) => s.path === p);
    expect(byPath("/wallet/getaccount")?.body).toEqual({ address: OWNER, visible: false });
    expect(byPath("/wallet/gettransactionbyid")?.body).toEqual({ value: "aa".repeat(32) });
    expect(byPath("/wallet/triggerconstantcontract")?.body).toEqual({
      owner_address: OWNER,
      contract_address: USDT,
      data: "313ce567",
      visible: false,
    });
    expect(byPath("/wallet/broadcasthex")?.body).toEqual({ transaction: "0a02" });
    expect(byPath("/wallet/getnowblock")?.headers["content-type"]).toBe("application/json");
    expect(c.requestCount).toBe(node.seen.length);
  });

  it("reads Stake 2.0 delegations, delegatable size and unfreeze count, mapping java-tron's omitted zeros", async () => {
    const RECEIVER = "41" + "22".repeat(20);
    let mode = "";
    const node = await fakeNode((path, body, res) => {
      if (mode === "bad") return json(res, { delegatedResource: "x", max_size: "1", fromAccounts: [1] });
      const known = body.owner_address === OWNER || body.value === OWNER || body.fromAddress === OWNER;
      if (!known) return json(res, {});
      if (path.endsWith("/getdelegatedresourcev2")) {
        return json(res, {
          delegatedResource: [
            { from: OWNER, to: RECEIVER, frozen_balance_for_energy: 5_000_000 },
            { from: OWNER, to: RECEIVER, frozen_balance_for_energy: 1_000_000, expire_time_for_energy: 9 },
          ],
        });
      }
      if (path.endsWith("/getdelegatedresourceaccountindexv2"))
        return json(res, { account: OWNER, toAccounts: [RECEIVER] });
      if (path.endsWith("/getcandelegatedmaxsize")) return json(res, { max_size: body.type === 1 ? 7e9 : 0 });
      if (path.endsWith("/getavailableunfreezecount")) return json(res, { count: 31 });
      json(res, "no such path", 404);
    });
    const c = client(node.url);
    expect(await c.getDelegatedResourceV2(hexToBase58(OWNER), RECEIVER)).toEqual([
      { from: OWNER, to: RECEIVER, frozen_balance_for_energy: 5_000_000 },
      { from: OWNER, to: RECEIVER, frozen_balance_for_energy: 1_000_000, expire_time_for_energy: 9 },
    ]);
    expect(await c.getDelegatedResourceV2(RECEIVER, OWNER, { solidified: true })).toEqual([]);
    expect(await c.getDelegatedResourceAccountIndexV2(OWNER)).toEqual({
      account: OWNER,
      fromAccounts: [],
      toAccounts: [RECEIVER],
    });
    expect(await c.getDelegatedResourceAccountIndexV2(RECEIVER)).toEqual({
      fromAccounts: [],
      toAccounts: [],
    });
    expect(await c.getCanDelegatedMaxSize(OWNER, "ENERGY")).toBe(7e9);
    expect(await c.getCanDelegatedMaxSize(OWNER, "BANDWIDTH", { solidified: true })).toBe(0);
    expect(await c.getAvailableUnfreezeCount(hexToBase58(OWNER))).toBe(31);
    expect(await c.getAvailableUnfreezeCount(RECEIVER)).toBe(0);
    expect(node.seen.map((s) => [s.path, s.body])).toEqual([
      ["/wallet/getdelegatedresourcev2", { fromAddress: OWNER, toAddress: RECEIVER, visible: false }],
      ["/walletsolidity/getdelegatedresourcev2", { fromAddress: RECEIVER, toAddress: OWNER, visible: false }],
      ["/wallet/getdelegatedresourceaccountindexv2", { value: OWNER, visible: false }],
      ["/wallet/getdelegatedresourceaccountindexv2", { value: RECEIVER, visible: false }],
      ["/wallet/getcandelegatedmaxsize", { owner_address: OWNER, type: 1, visible: false }],
      ["/walletsolidity/getcandelegatedmaxsize", { owner_address: OWNER, type: 0, visible: false }],
      ["/wallet/getavailableunfreezecount", { owner_address: OWNER, visible: false }],
      ["/wallet/getavailableunfreezecount", { owner_address: RECEIVER, visible: false }],
    ]);
    mode = "bad";
    expect((await failure(c.getDelegatedResourceV2(OWNER, RECEIVER))).kind).toBe("malformed");
    expect((await failure(c.getCanDelegatedMaxSize(OWNER, "ENERGY"))).kind).toBe("malformed");
    expect((await failure(c.getDelegatedResourceAccountIndexV2(OWNER))).kind).toBe("malformed");
  });

  it("fetches a block header with wallet/getblock detail false, by number or id, from either chain view", async () => {
    const events: NodeRequestEvent[] = [];
    let mode = "";
    const node = await fakeNode((path, body, res) => {
      if (mode === "503") return json(res, "busy", 503);
      if (mode === "no-parent") return json(res, { blockID: BLOCK.blockID, block_header: { raw_data: {} } });
      if (mode === "error") return json(res, { Error: "class java.lang.NumberFormatException : x" });
      if (mode === "ignores-detail") return json(res, { ...BLOCK, transactions: [{ txID: "aa" }] });
      const known = body.id_or_num === "100" || body.id_or_num === BLOCK.blockID;
      if (path === "/wallet/getblock") return json(res, known ? BLOCK : {});
      if (path === "/walletsolidity/getblock") return json(res, {});
      json(res, "no such path", 404);
    });
    const c = client(node.url, { apiKey: "k-9", onRequest: (e) => events.push(e) });
    expect(await c.getBlockHeader(100)).toEqual(BLOCK);
    expect(await c.getBlockHeader("0x" + BLOCK.blockID.toUpperCase())).toEqual(BLOCK);
    expect(await c.getBlockHeader(101)).toBeNull();
    expect(await c.getBlockHeader(100, { solidified: true })).toBeNull();
    expect(node.seen.map((s) => [s.path, s.body])).toEqual([
      ["/wallet/getblock", { id_or_num: "100", detail: false }],
      ["/wallet/getblock", { id_or_num: BLOCK.blockID, detail: false }],
      ["/wallet/getblock", { id_or_num: "101", detail: false }],
      ["/walletsolidity/getblock", { id_or_num: "100", detail: false }],
    ]);
    expect(node.seen.every((s) => s.headers["tron-pro-api-key"] === "k-9")).toBe(true);

    // a node that sends the transactions anyway: the header is what the caller gets
    mode = "ignores-detail";
    expect(await c.getBlockHeader(100)).toEqual(BLOCK);
    for (const [m, kind, retryable] of [
      ["503", "server", true],
      ["no-parent", "malformed", true],
      ["error", "validation", false],
    ] as const) {
      mode = m;
      const e = await failure(c.getBlockHeader(100));
      expect([m, e.kind, e.retryable, e.path]).toEqual([m, kind, retryable, "/wallet/getblock"]);
    }
    await expect(c.getBlockHeader(-1)).rejects.toThrow(RangeError);
    await expect(c.getBlockHeader("abc")).rejects.toThrow(RangeError);
    expect(c.requestCount).toBe(8);
    // onRequest reports the HTTP outcome; a shape check after a 200 is the caller's error, not the call's
    expect(events.map((e) => e.errorKind ?? e.status)).toEqual([
      200,
      200,
      200,
      200,
      200,
      "server",
      200,
      "validation",
    ]);
  });

  it("sends TRON-PRO-API-KEY only when an API key is configured, and honours a path prefix", async () => {
    const node = await fakeNode((_p, _b, res) => json(res, BLOCK));
    await client(node.url + "/tron/", { apiKey: "k-123" }).getNowBlock();
    await client(node.url).getNowBlock();
    expect(node.seen[0]?.path).toBe("/tron/wallet/getnowblock");
    expect(node.seen[0]?.headers["tron-pro-api-key"]).toBe("k-123");
    expect(node.seen[1]?.headers["tron-pro-api-key"]).toBeUndefined();
  });

  it("classifies 429, 5xx, malformed bodies, non-block answers, timeouts and refused connections as retryable", async () => {
    let mode = "";
    const node = await fakeNode((_p, _b, res) => {
      if (mode === "429") {
        res.writeHead(429, { "retry-after": "3" });
        return res.end("slow down");
      }
      if (mode === "503") return json(res, "upstream unavailable", 503);
      if (mode === "garbage") return json(res, "<html>not json");
      if (mode === "wrong-shape") return json(res, { hello: "world" });
      if (mode === "slow") return void setTimeout(() => json(res, BLOCK), 1500);
    });
    const c = client(node.url, { timeoutMs: 300 });
    const cases: [string, string, number | undefined][] = [
      ["429", "rate_limited", 429],
      ["503", "server", 503],
      ["garbage", "malformed", 200],
      ["wrong-shape", "malformed", undefined],
      ["slow", "timeout", undefined],
    ];
    for (const [m, kind, status] of cases) {
      mode = m;
      const e = await failure(c.getNowBlock());
      expect([m, e.kind, e.retryable]).toEqual([m, kind, true]);
      if (status !== undefined) expect(e.status).toBe(status);
      if (m === "429") expect(e.retryAfterMs).toBe(3000);
    }
    const refused = client("http://127.0.0.1:1");
    const e = await failure(refused.getNowBlock());
    expect([e.kind, e.retryable]).toEqual(["network", true]);
  });

  it("classifies java-tron {Error} answers and rejected broadcasts as permanent, decoding the hex message", async () => {
    const code = { value: "SIGERROR" };
    const node = await fakeNode((path, _b, res) => {
      if (path === "/wallet/getaccount")
        return json(res, { Error: "class java.lang.IllegalArgumentException : bad address" });
      if (path === "/wallet/triggerconstantcontract") {
        return json(res, {
          result: { code: "CONTRACT_VALIDATE_ERROR", message: Buffer.from("No contract").toString("hex") },
        });
      }
      json(res, {
        result: false,
        code: code.value,
        message: Buffer.from("validate signature error").toString("hex"),
      });
    });
    const c = client(node.url);
    const bad = await failure(c.getAccount(OWNER));
    expect([bad.kind, bad.retryable]).toEqual(["validation", false]);
    expect(bad.message).toContain("bad address");

    const sig = await failure(c.broadcastHex("0a"));
    expect([sig.kind, sig.retryable, sig.code]).toEqual(["signature", false, "SIGERROR"]);
    expect(sig.message).toContain("validate signature error");

    const expected: Record<string, [string, boolean]> = {
      CONTRACT_VALIDATE_ERROR: ["validation", false],
      TAPOS_ERROR: ["tapos", false],
      TRANSACTION_EXPIRATION_ERROR: ["expired", false],
      DUP_TRANSACTION_ERROR: ["duplicate", false],
      SERVER_BUSY: ["busy", true],
    };
    for (const [k, [kind, retryable]] of Object.entries(expected)) {
      code.value = k;
      const e = await failure(c.broadcastHex("0a"));
      expect([k, e.kind, e.retryable, e.code]).toEqual([k, kind, retryable, k]);
    }
    const call = await failure(c.triggerConstantContract({ owner: OWNER, contract: USDT, data: "00" }));
    expect([call.kind, call.retryable]).toEqual(["validation", false]);
    expect(call.message).toContain("No contract");
  });

  it("never puts the API key into an error message, even when the node echoes it", async () => {
    const key = "secret-key-5f3e";
    let mode = 0;
    const node = await fakeNode((_p, _b, res) => {
      mode++;
      if (mode === 1) return json(res, `echo ${key}`, 500);
      if (mode === 2) return json(res, { Error: `bad key ${key}` });
      return json(res, `not json ${key}`);
    });
    const c = client(node.url, { apiKey: key });
    for (let i = 0; i < 3; i++) {
      const e = await failure(c.getNowBlock());
      expect(e.message).not.toContain(key);
      expect(String(e.stack)).not.toContain(key);
      expect(JSON.stringify(e)).not.toContain(key);
    }
    const refused = await failure(client("http://127.0.0.1:1", { apiKey: key }).getNowBlock());
    expect(refused.message).not.toContain(key);
  });

  it("reports every call to onRequest with its status or error kind", async () => {
    const events: NodeRequestEvent[] = [];
    let fail = false;
    const node = await fakeNode((_p, _b, res) => (fail ? json(res, "x", 502) : json(res, BLOCK)));
    const c = client(node.url, { onRequest: (e) => events.push(e) });
    await c.getNowBlock();
    fail = true;
    await failure(c.getNowBlock());
    expect(events.map((e) => [e.path, e.status, e.errorKind])).toEqual([
      ["/wallet/getnowblock", 200, undefined],
      ["/wallet/getnowblock", 502, "server"],
    ]);
    expect(c.requestCount).toBe(2);
  });
});
