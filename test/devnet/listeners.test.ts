import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Devnet } from "@stablegate/devnet";
import { freshDevnet } from "./helpers.js";

let devnet: Devnet;
let urls: string[];

beforeAll(async () => {
  devnet = await freshDevnet({ solidifyAfter: 3, extraPorts: [0, 0] });
  urls = devnet.listeners.map((l) => l.url);
});
afterAll(() => devnet.close());

/** A field deep in a JSON answer (undefined when absent). */
function at(v: unknown, ...keys: string[]): unknown {
  for (const k of keys) v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

async function call(
  url: string,
  path: string,
  body: unknown = {},
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

const headOf = async (url: string) =>
  at((await call(url, "/wallet/getnowblock")).json, "block_header", "raw_data", "number") as number;

describe("extra listeners", () => {
  it("serve the same chain on every port", async () => {
    expect(new Set(urls).size).toBe(3);
    expect(devnet.url).toBe(urls[0]);
    await call(urls[2] as string, "/devnet/mine", { blocks: 4 });
    const heads = await Promise.all(urls.map((u) => call(u, "/wallet/getnowblock")));
    expect(new Set(heads.map((h) => at(h.json, "blockID"))).size).toBe(1);
    expect(at(heads[0]?.json, "block_header", "raw_data", "number")).toBe(devnet.mine(0));
  });

  it("keep faults and request counters per listener", async () => {
    const [a, b] = urls as [string, string];
    await call(a, "/devnet/requests/reset");
    await call(b, "/devnet/requests/reset");
    const set = await call(b, "/devnet/faults", { rate_500: 1 });
    expect(set.status).toBe(200);
    try {
      expect((await call(b, "/wallet/getnowblock")).status).toBe(500);
      expect((await call(a, "/wallet/getnowblock")).status).toBe(200);
      const infoA = (await call(a, "/devnet/info")).json;
      const infoB = (await call(b, "/devnet/info")).json;
      expect(at(infoA, "faults")).toBeNull();
      expect(at(infoB, "faults")).toMatchObject({ rate500: 1 });
      expect(at(infoA, "requests", "total")).toBe(1);
      expect(at(infoB, "requests", "total")).toBe(1);
    } finally {
      await call(b, "/devnet/faults", {});
    }
    expect((await call(b, "/wallet/getnowblock")).status).toBe(200);
  });

  it("lag_blocks shows the chain that many blocks behind: head, blocks, solidified head, infos", async () => {
    const [a, , lagging] = urls as [string, string, string];
    // A block with a transaction, then enough blocks on top that it is solidified on the real chain.
    const funded = await call(a, "/devnet/fund", { address: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf", trx: "1" });
    expect(funded.status).toBe(200);
    const txBlock = at(funded.json, "block") as number;
    const txid = (at(funded.json, "txids") as string[])[0] as string;
    const head = devnet.mine(4);
    expect(head).toBe(txBlock + 4);

    expect((await call(lagging, "/devnet/faults", { lag_blocks: 6 })).status).toBe(200);
    try {
      expect(await headOf(a)).toBe(head);
      expect(await headOf(lagging)).toBe(head - 6);
      const solid = await call(lagging, "/walletsolidity/getnowblock");
      expect(at(solid.json, "block_header", "raw_data", "number")).toBe(head - 6 - 3);
      expect((await call(lagging, "/wallet/getblockbynum", { num: head })).json).toEqual({});
      expect((await call(lagging, "/wallet/getblock", { id_or_num: String(head - 5) })).json).toEqual({});
      const visible = await call(lagging, "/wallet/getblock", { id_or_num: String(head - 6) });
      expect(at(visible.json, "block_header", "raw_data", "number")).toBe(head - 6);
      // The transaction's block is beyond the lagging view: no infos, no transaction.
      expect((await call(lagging, "/wallet/gettransactioninfobyblocknum", { num: txBlock })).json).toEqual(
        [],
      );
      expect((await call(a, "/wallet/gettransactioninfobyblocknum", { num: txBlock })).json).toHaveLength(1);
      expect((await call(lagging, "/wallet/gettransactioninfobyid", { value: txid })).json).toEqual({});
      expect((await call(lagging, "/wallet/gettransactionbyid", { value: txid })).json).toEqual({});
      expect(at((await call(a, "/wallet/gettransactioninfobyid", { value: txid })).json, "id")).toBe(txid);
      const range = await call(lagging, "/wallet/getblockbylimitnext", {
        startNum: head - 7,
        endNum: head + 1,
      });
      expect(at(range.json, "block")).toHaveLength(2);
      // The view moves with the chain.
      devnet.mine(6);
      expect(await headOf(lagging)).toBe(head);
      expect(at((await call(lagging, "/wallet/gettransactioninfobyid", { value: txid })).json, "id")).toBe(
        txid,
      );
      expect((await call(lagging, "/devnet/faults", { lag_blocks: -1 })).status).toBe(400);
    } finally {
      await call(lagging, "/devnet/faults", {});
    }
    expect(await headOf(lagging)).toBe(head + 6);
  });

  it("down cuts the listener's connections; stop and start close and reopen its port", async () => {
    const [a, b] = urls as [string, string];
    await call(b, "/devnet/faults", { down: true });
    await expect(fetch(b + "/wallet/getnowblock", { method: "POST", body: "{}" })).rejects.toThrow();
    expect((await call(a, "/wallet/getnowblock")).status).toBe(200);
    // The control API still answers on a listener that is "down".
    expect((await call(b, "/devnet/faults", {})).status).toBe(200);
    expect((await call(b, "/wallet/getnowblock")).status).toBe(200);

    const listener = devnet.listeners[1]!;
    await listener.stop();
    const attempt = () =>
      fetch(b + "/wallet/getnowblock", { method: "POST", body: "{}" }).then(
        (r) => r.status,
        (e: Error & { cause?: { code?: string } }) => e.cause?.code,
      );
    // The first attempt may meet the keep-alive socket just cut; a new connection is refused.
    expect(await attempt()).not.toBe(200);
    expect(await attempt()).toBe("ECONNREFUSED");
    expect((await call(a, "/wallet/getnowblock")).status).toBe(200);
    await listener.start();
    expect(listener.url).toBe(b);
    expect((await call(b, "/wallet/getnowblock")).status).toBe(200);
  });
});
