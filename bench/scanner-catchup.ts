/**
 * Scanner catch-up: 1,200 mainnet-shaped blocks (300 transactions, 100 USDT transfers each) with
 * 10,000 watched addresses, some of the transfers going to them. Prints blocks/s and the total
 * catch-up time (goal: <= 15 s). PostgreSQL (BENCH_DATABASE_URL or the local default).
 *
 *   npx tsx bench/scanner-catchup.ts [blocks]
 */
import { sql } from "drizzle-orm";
import { createScanner } from "../src/chain/scanner.js";
import { benchContext, insertOrders, spawnDevnet } from "./chain-lib.js";

const BLOCKS = Number(process.argv[2] ?? 1200);
const WATCHED = 10_000;
/** Of the recipients in the load, this many are order addresses; the rest are strangers. */
const WATCHED_RECIPIENTS = 200;
const STRANGERS = 9_800;

const devnet = await spawnDevnet(0);
const bench = await benchContext(devnet);
try {
  const { ctx } = bench;
  const watched = await insertOrders(ctx, WATCHED);
  const { hexToBase58 } = await import("@stablegate/tron/address");
  const { randomBytes } = await import("node:crypto");
  const strangers = Array.from({ length: STRANGERS }, () =>
    hexToBase58(`41${randomBytes(20).toString("hex")}`),
  );
  const recipients = [...watched.slice(0, WATCHED_RECIPIENTS), ...strangers];

  const scanner = createScanner(ctx);
  await scanner.scanOnce(); // first start: the cursor is placed just below the head
  await scanner.sync();
  const from = ((await devnet.info()).head as number) + 1;
  let loaded = 0;
  const loadStarted = performance.now();
  while (loaded < BLOCKS) {
    const n = Math.min(100, BLOCKS - loaded);
    await devnet.post("/devnet/load", {
      blocks: n,
      tx_per_block: 300,
      usdt_per_block: 100,
      to_addresses: recipients,
    });
    loaded += n;
  }
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const head = (await devnet.info()).head;
  const callsBefore = ctx.chain.client.requestCount;

  const started = performance.now();
  let fetchWaitMs = 0;
  let applyMs = 0;
  for (;;) {
    const pass = await scanner.scanOnce();
    fetchWaitMs += pass.fetchWaitMs ?? 0;
    applyMs += pass.applyMs ?? 0;
    if (pass.caughtUp) break;
  }
  const seconds = (performance.now() - started) / 1000;
  const calls = ctx.chain.client.requestCount - callsBefore;
  const [credited] = await ctx.db
    .execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM transfers`)
    .then((r) => (r as unknown as { rows: { n: number }[] }).rows);
  const [detected] = await ctx.db
    .execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM orders WHERE status = 'detected'`)
    .then((r) => (r as unknown as { rows: { n: number }[] }).rows);
  const blocks = head - from + 1;
  console.log(
    JSON.stringify(
      {
        bench: "scanner-catchup",
        database: "postgresql",
        blocks,
        transactions: blocks * 300,
        usdt_transfers: blocks * 100,
        watched_addresses: WATCHED,
        transfers_credited: credited?.n,
        orders_detected: detected?.n,
        node_calls: calls,
        catchup_seconds: Number(seconds.toFixed(2)),
        blocks_per_second: Number((blocks / seconds).toFixed(1)),
        waiting_for_node_seconds: Number((fetchWaitMs / 1000).toFixed(2)),
        applying_to_database_seconds: Number((applyMs / 1000).toFixed(2)),
        goal_seconds: 15,
        load_generation_seconds: Number(loadSeconds.toFixed(1)),
      },
      null,
      2,
    ),
  );
} finally {
  await bench.close();
  await devnet.close();
}
