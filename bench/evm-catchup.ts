/**
 * An EVM chain's catch-up, scanned AND applied: Anvil (the devnet's tokens) holding BLOCKS blocks
 * with TRANSFERS token transfers (the devnet's USDT and USDC in turn), one in four of them
 * to one of OURS derived deposit addresses, each held by a pending order on `ethereum` in that
 * token's currency; the rest go to strangers. The service's scanner (src/chain/scanner.ts, its
 * defaults: 400-block passes, 50-block transactions) runs from the first block to the last on a
 * scratch PostgreSQL database, recording every transfer to our addresses and moving its order to
 * `detected`. Prints blocks/s and transfers/s (all transfers read, and those applied), and, in the
 * same run, the TRON scanner's catch-up (bench/scanner-catchup.ts as a child process). Goal: under
 * 10 s.
 *
 * The chain is built once and kept as an Anvil state file in the temporary directory (building
 * takes minutes; loading it, seconds): the transfers go into every SPACING-th block, the blocks
 * between are empty (one anvil_mine each run of them).
 *
 *   npx tsx bench/evm-catchup.ts [blocks=10000] [transfers=20000] [spacing=10]
 *   BENCH_SKIP_TRON=1 leaves the TRON figure out.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { sql } from "drizzle-orm";
import { startEvmDevnet, type EvmDevnet } from "@stablegate/devnet";
import { createScanner } from "../src/chain/scanner.js";
import { initCursor } from "../src/chain/cursor.js";
import type { Currency } from "../src/chains/chain-types.js";
import { queryRows } from "../src/db/query-rows.js";
import { newId } from "../src/ids.js";
import { benchContext, spawnDevnet } from "./chain-lib.js";

const BLOCKS = Number(process.argv[2] ?? 10_000);
const TRANSFERS = Number(process.argv[3] ?? 20_000);
const SPACING = Number(process.argv[4] ?? 10);
const OURS_EVERY = 4;
const word = (v: string | bigint) =>
  (typeof v === "string" ? v.replace(/^0x/, "") : v.toString(16)).padStart(64, "0");

interface ChainMeta {
  first: number;
  last: number;
  /** Per transfer to our addresses: recipient, token index, token units. */
  ours: { to: string; token: number; units: string }[];
}

const cacheName = `stablegate-bench-evm-catchup-v1-${BLOCKS}-${TRANSFERS}-${SPACING}`;
const cachedState = join(tmpdir(), `${cacheName}.json`);
const cachedMeta = join(tmpdir(), `${cacheName}.meta.json`);
// Anvil writes its state file while it runs: each run works on a copy.
const stateFile = join(mkdtempSync(join(tmpdir(), "stablegate-bench-anvil-")), "state.json");
const cached = existsSync(cachedState) && existsSync(cachedMeta);
if (cached) copyFileSync(cachedState, stateFile);

const tron = await spawnDevnet(3000);
// Building, Anvil keeps no state file (it would rewrite it, growing, every 5 s): the state is
// dumped once at the end instead.
const eth = await startEvmDevnet({
  port: 0,
  blockTimeMs: 0,
  finalityDepth: 64,
  ...(cached ? { stateFile } : {}),
});
const tokens = [eth.usdtContract, eth.usdcContract].map((c) => c.toLowerCase());
const currencies: Currency[] = ["USDT", "USDC"];
const bench = await benchContext(tron, {
  CHAINS: "tron,ethereum",
  ETHEREUM_NETWORK: "devnet",
  ETHEREUM_RPC_URL: eth.rpcUrl,
  ETHEREUM_USDT_CONTRACT: eth.usdtContract,
  ETHEREUM_USDC_CONTRACT: eth.usdcContract,
});
const { ctx } = bench;
try {
  const chain = ctx.chains.get("ethereum");
  if (!chain) throw new Error("ethereum is not enabled");
  const oursCount = Math.ceil(TRANSFERS / OURS_EVERY);
  const xpub = ctx.config.evmWallet.xpub;
  if (xpub === undefined) throw new Error("no EVM wallet is configured");
  const ours = await chain.derivation.deriveAddresses(xpub, 0, oursCount, 0);

  let meta: ChainMeta;
  if (cached) {
    meta = JSON.parse(readFileSync(cachedMeta, "utf8")) as ChainMeta;
    console.log(`chain loaded from ${cachedState}: blocks ${meta.first}..${meta.last}`);
  } else {
    const started = performance.now();
    meta = await populate(eth, ours);
    console.log(
      `populated blocks ${meta.first}..${meta.last} with ${TRANSFERS} transfers in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  const blocks = meta.last - meta.first + 1;

  // One pending order per transfer to our addresses, in the token's currency, with its address.
  const merchantId = newId();
  const now = new Date();
  await ctx.database.session(async (s) => {
    await s.query(
      `INSERT INTO merchants (id, name, api_key_hash, api_key_prefix, webhook_secret, created_at, updated_at)
       VALUES ($1, 'Bench Shop', $2, 'sg_test_bench', 'bench-webhook-secret', $3, $3)`,
      [merchantId, randomBytes(16).toString("hex"), now],
    );
    const ids = meta.ours.map(() => newId());
    await s.query(
      `INSERT INTO orders (id, merchant_id, external_id, amount_expected, currency, chain, network, status,
         address, callback_url, expires_at, created_at, updated_at)
       SELECT id, $1, 'bench-' || id, 10000000, currency, 'ethereum', 'devnet', 'pending', address,
         'https://merchant.example.com/hook', $2::timestamptz + interval '1 day', $2, $2
       FROM unnest($3::uuid[], $4::text[], $5::text[]) AS u(id, address, currency)`,
      [merchantId, now, ids, meta.ours.map((o) => o.to), meta.ours.map((o) => currencies[o.token])],
    );
    await s.query(
      `INSERT INTO addresses (family, derivation_index, address, status, order_id, allocated_at, created_at)
       SELECT 'evm', ord - 1, address, 'allocated', id, $1, $1
       FROM unnest($2::uuid[], $3::text[]) WITH ORDINALITY AS u(id, address, ord)`,
      [now, ids, meta.ours.map((o) => o.to)],
    );
  });

  // The cursor just below the first loaded block, as a scanner that stopped there (hashes as the
  // chain boundary gives them: lowercase hex without 0x).
  const bare = (hash: string) => hash.replace(/^0x/, "").toLowerCase();
  const below = await eth.rpc<{ hash: string; parentHash: string }>("eth_getBlockByNumber", [
    "0x" + (meta.first - 1).toString(16),
    false,
  ]);
  await ctx.db.transaction((tx) =>
    initCursor(
      ctx,
      tx,
      { number: meta.first - 1, hash: bare(below.hash), parentHash: bare(below.parentHash) },
      chain.id,
    ),
  );
  const head = Number(BigInt(await eth.rpc<string>("eth_blockNumber")));
  if (head !== meta.last) throw new Error(`the chain's head is ${head}, expected ${meta.last}`);

  const scanner = createScanner(ctx, { chain });
  const loadBefore = loadavg()[0]?.toFixed(1);
  const started = performance.now();
  let fetchWaitMs = 0;
  let applyMs = 0;
  let passes = 0;
  for (;;) {
    const pass = await scanner.scanOnce();
    if (process.env.BENCH_DEBUG) console.log(JSON.stringify(pass));
    passes += 1;
    fetchWaitMs += pass.fetchWaitMs ?? 0;
    applyMs += pass.applyMs ?? 0;
    if (pass.caughtUp) break;
  }
  const seconds = (performance.now() - started) / 1000;
  const [row] = await queryRows<{ transfers: string; detected: string; strays: string }>(
    ctx.db,
    sql`SELECT (SELECT count(*)::text FROM transfers WHERE chain = 'ethereum') AS transfers,
               (SELECT count(*)::text FROM orders WHERE chain = 'ethereum' AND status = 'detected') AS detected,
               (SELECT count(*)::text FROM stray_transfers WHERE chain = 'ethereum') AS strays`,
  );
  const applied = Number(row?.transfers);
  if (applied !== meta.ours.length || Number(row?.detected) !== meta.ours.length) {
    throw new Error(
      `applied ${applied} transfers and detected ${row?.detected} orders, expected ${meta.ours.length}`,
    );
  }
  console.log(
    `ethereum (Anvil): ${blocks} blocks, ${TRANSFERS} transfers (${applied} to our addresses, applied: ` +
      `${row?.detected} orders detected, ${row?.strays} strays) scanned and applied in ${seconds.toFixed(2)} s = ` +
      `${Math.round(blocks / seconds)} blocks/s, ${Math.round(TRANSFERS / seconds)} transfers/s ` +
      `(goal < 10 s: ${seconds < 10 ? "met" : "MISSED"}); waiting for the node ${(fetchWaitMs / 1000).toFixed(2)} s, ` +
      `applying ${(applyMs / 1000).toFixed(2)} s, ${passes} passes; load average ${loadBefore} -> ${loadavg()[0]?.toFixed(1)}`,
  );
  if (!cached) {
    // Kept for the next run: anvil_dumpState's bytes (gzip-compressed JSON), as --state reads them.
    const dumped = Buffer.from((await eth.rpc<string>("anvil_dumpState")).replace(/^0x/, ""), "hex");
    const json = dumped[0] === 0x1f && dumped[1] === 0x8b ? gunzipSync(dumped) : dumped;
    writeFileSync(`${cachedState}.tmp`, json);
    renameSync(`${cachedState}.tmp`, cachedState);
    console.log(`chain kept in ${cachedState}`);
  }
} finally {
  await bench.close();
  await eth.close();
  await tron.close();
}

if (process.env.BENCH_SKIP_TRON !== "1") {
  // The TRON scanner's catch-up in the same run, after this one (never beside it).
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", join(import.meta.dirname, "scanner-catchup.ts")],
    { maxBuffer: 1 << 24 },
  );
  const tronResult = JSON.parse(stdout.slice(stdout.indexOf("{"))) as {
    blocks: number;
    usdt_transfers: number;
    catchup_seconds: number;
    blocks_per_second: number;
  };
  console.log(
    `tron (bench/scanner-catchup.ts, same run): ${tronResult.blocks} blocks, ${tronResult.usdt_transfers} USDT transfers in ` +
      `${tronResult.catchup_seconds} s = ${tronResult.blocks_per_second} blocks/s, ` +
      `${Math.round(tronResult.usdt_transfers / tronResult.catchup_seconds)} transfers/s`,
  );
}

/** Builds the chain: TRANSFERS in every SPACING-th block, empty blocks between. */
async function populate(devnet: EvmDevnet, oursList: string[]): Promise<ChainMeta> {
  const first = Number(BigInt(await devnet.rpc<string>("eth_blockNumber"))) + 1;
  const loaded = Math.ceil(BLOCKS / SPACING);
  const perLoaded = TRANSFERS / loaded;
  let nonce = Number(
    BigInt(await devnet.rpc<string>("eth_getTransactionCount", [devnet.faucetAddress, "pending"])),
  );
  const out: ChainMeta["ours"] = [];
  let sent = 0;
  let mined = 0;
  for (let b = 0; b < loaded; b++) {
    const batch: unknown[] = [];
    for (const target = Math.round((b + 1) * perLoaded); sent < target; sent++) {
      const token = Math.floor(sent / OURS_EVERY) % tokens.length;
      const mine = sent % OURS_EVERY === 0;
      const to = mine ? (oursList[out.length] as string) : "0x" + word(BigInt(sent + 1) * 7919n).slice(-40);
      const units = BigInt(sent + 1);
      if (mine) out.push({ to, token, units: units.toString() });
      batch.push({
        jsonrpc: "2.0",
        id: batch.length,
        method: "eth_sendTransaction",
        params: [
          {
            from: devnet.faucetAddress,
            to: tokens[token],
            data: "0xa9059cbb" + word(to) + word(units),
            gas: "0x20000",
            nonce: "0x" + (nonce++).toString(16),
          },
        ],
      });
    }
    const res = await fetch(devnet.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(batch),
    });
    const replies = (await res.json()) as { error?: { message: string } }[];
    const failed = replies.find((r) => r.error);
    if (failed) throw new Error(`populating failed: ${failed.error?.message}`);
    await devnet.mine(1);
    mined += 1;
    const empty = Math.min(SPACING - 1, BLOCKS - mined);
    if (empty > 0) {
      await devnet.mine(empty);
      mined += empty;
    }
    if (b % 250 === 249) console.log(`  populating: ${mined} of ${BLOCKS} blocks`);
  }
  const last = Number(BigInt(await devnet.rpc<string>("eth_blockNumber")));
  const meta: ChainMeta = { first, last, ours: out };
  writeFileSync(cachedMeta, JSON.stringify(meta));
  return meta;
}
