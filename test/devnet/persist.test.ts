import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { toHex } from "@stablegate/tron/address";
import { Chain } from "@stablegate/devnet/chain";
import { LoadGenerator } from "@stablegate/devnet/load";
import { ChainLog, loadChain, writeSnapshot } from "@stablegate/devnet/persist";
import { freshDevnet, newAccount, post, tronWebFor } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop() as string, { recursive: true, force: true });
});

function stateFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "devnet-log-"));
  dirs.push(dir);
  return join(dir, "chain.json");
}

/** A new chain logging to `file`, as startDevnet sets it up. */
function loggedChain(file: string, solidifyAfter = 5): { chain: Chain; log: ChainLog } {
  const chain = new Chain({ solidifyAfter });
  chain.initGenesis();
  writeSnapshot(chain, file);
  return { chain, log: new ChainLog(chain, file, (m) => expect.fail(m)) };
}

/** Everything a restart must bring back, in comparable form. */
function picture(c: Chain) {
  return {
    accounts: c.state.accounts,
    slots: c.state.slots,
    tokens: c.state.tokens,
    tokenNonce: c.tokenNonce,
    lastTimestamp: c.lastTimestamp,
    blocks: c.blocks.map((b) => [b.number, b.id, b.parentHash, b.witnessSignature, b.txs.map((t) => t.id)]),
    // undo journals of the blocks that can still be reorganised
    journals: c.blocks.filter((b) => b.journal).map((b) => [b.number, b.journal]),
    pending: c.pending.map((t) => t.id),
    pendingJournal: c.state.journal,
    txIndex: [...c.txIndex.keys()].sort(),
  };
}

const flushed = () => new Promise((r) => setImmediate(r));

describe("devnet state log", () => {
  it("rebuilds the same chain after many blocks, load traffic, tokens, forks and a pending pool", async () => {
    const file = stateFile();
    const { chain, log } = loggedChain(file);
    const load = new LoadGenerator(chain);
    const payee = toHex((await newAccount()).base58);
    chain.fund(payee, 5_000_000n, 7_000_000n);
    chain.mine(1);
    load.run({ blocks: 40, txPerBlock: 20, usdtPerBlock: 10 });
    chain.createToken("Euro Coin", "EURC", 6);
    chain.fund(payee, 1_000_000n, 0n);
    chain.mine(3);
    chain.fork(2); // drops the faucet funding of the last blocks' pending pool too
    chain.mine(300);
    chain.fund(payee, 2_000_000n, 1_000_000n);
    chain.mine(2);
    chain.fork(1);
    chain.fund(payee, 3_000_000n, 0n); // left pending
    await flushed();
    const before = statSync(file).size;
    chain.mine(1);
    await flushed();
    // a save appends the new block: a few hundred bytes, not the chain
    expect(statSync(file).size - before).toBeLessThan(4000);
    chain.fund(payee, 4_000_000n, 0n); // pending at close
    log.close();

    const loaded = loadChain(file, 5);
    expect(loaded?.rewrite).toBe(false);
    const again = loaded?.chain as Chain;
    expect(picture(again)).toEqual(picture(chain));
    expect(again.account(payee, true)).toEqual(chain.account(payee, true));

    // the restored chain keeps working and logging: mine the pending pool, fork, restart again
    const log2 = new ChainLog(again, file, (m) => expect.fail(m));
    again.mine(2);
    again.fork(2);
    again.mine(1);
    log2.close();
    expect(picture(loadChain(file, 5)?.chain as Chain)).toEqual(picture(again));
  });

  it("ignores and cuts off a torn last line", async () => {
    const file = stateFile();
    const { chain, log } = loggedChain(file);
    chain.mine(30);
    log.close();
    const good = readFileSync(file, "utf8");
    appendFileSync(file, '{"t":"block","block":{"number":32,"id":"00000000000000');

    const loaded = loadChain(file, 5)?.chain as Chain;
    expect(picture(loaded)).toEqual(picture(chain));
    expect(readFileSync(file, "utf8")).toBe(good);
    const log2 = new ChainLog(loaded, file, (m) => expect.fail(m));
    loaded.mine(2);
    log2.close();
    expect(loadChain(file, 5)?.chain.head.number).toBe(chain.head.number + 2);

    // damage anywhere but the end is an error, not silently lost blocks
    const lines = readFileSync(file, "utf8").split("\n");
    lines[3] = "garbage";
    rmSync(file);
    appendFileSync(file, lines.join("\n"));
    expect(() => loadChain(file, 5)).toThrow(/line 4 is not JSON/);
  });

  it("reads a version-1 state file (one JSON document) and rewrites it as a log", async () => {
    const file = stateFile();
    const { chain, log } = loggedChain(file);
    chain.mine(3);
    log.close();
    // a version-1 file is the snapshot line's document with version 1 and no final newline
    const snapshot = JSON.parse(readFileSync(file, "utf8").split("\n")[0] as string) as Record<
      string,
      unknown
    >;
    const { t: _t, ...v1Document } = snapshot;
    rmSync(file);
    appendFileSync(file, JSON.stringify({ ...v1Document, version: 1 }));
    const v1 = loadChain(file, 5);
    expect(v1?.rewrite).toBe(true);
    // the snapshot predates the last blocks, which only the log held
    expect(v1?.chain.head.number).toBe(1);
    writeSnapshot(v1?.chain as Chain, file);
    expect(loadChain(file, 5)?.rewrite).toBe(false);
  });
});

describe("devnet restart with stateFile", () => {
  it("serves the same chain after a restart following many blocks, and after a torn final line", async () => {
    const file = stateFile();
    const first = await freshDevnet({ stateFile: file });
    const a = await newAccount();
    await post(first, "/devnet/fund", { address: a.base58, trx: "3", usdt: "2" });
    await post(first, "/devnet/load", { blocks: 50, tx_per_block: 10 });
    first.mine(500);
    const head = (await post<{ blockID: string }>(first, "/wallet/getnowblock")).blockID;
    await first.close();

    appendFileSync(file, '{"t":"blo');
    const second = await freshDevnet({ stateFile: file });
    expect((await post<{ blockID: string }>(second, "/wallet/getnowblock")).blockID).toBe(head);
    const tw = tronWebFor(second);
    expect(await tw.trx.getUnconfirmedBalance(a.base58)).toBe(3_000_000);
    expect((await tw.trx.sendTrx(a.base58, 1_000_000)).result).toBe(true);
    second.mine(1);
    await second.close();
    const third = await freshDevnet({ stateFile: file });
    expect(await tronWebFor(third).trx.getUnconfirmedBalance(a.base58)).toBe(4_000_000);
    await third.close();
  });
});
