/**
 * Failover time: from the preferred node going down to the next block being scanned on the fallback.
 * The devnet (own process, a block every BLOCK_TIME_MS) serves the chain on two listeners, and
 * TRON_NODE_URL lists both; the scanner runs as in production (leader loop, default failover
 * settings). Each trial, at a random moment, cuts every connection of the preferred listener
 * (`{"down": true}`: every call fails at once, as when a node process dies) and measures until the
 * cursor passes the head of that moment; then the listener comes back and the run waits until
 * calls have returned to it. Goal: <= 10 s.
 *
 *   npx tsx bench/failover.ts [trials] [block_time_ms]
 */
import { loadavg } from "node:os";
import { readCursor } from "../src/chain/cursor.js";
import { startScannerLeader } from "../src/chain/scanner-leader.js";
import { benchContext, insertOrders, percentile, spawnDevnet } from "./chain-lib.js";

const TRIALS = Number(process.argv[2] ?? 5);
const BLOCK_TIME_MS = Number(process.argv[3] ?? 3000);

const devnet = await spawnDevnet(BLOCK_TIME_MS, 19, 1);
const primary = devnet.extraUrls[0] as string;
const fallback = devnet.url;
const bench = await benchContext(devnet, { TRON_NODE_URL: `${primary},${fallback}` });

async function faults(url: string, body: unknown): Promise<void> {
  const res = await fetch(`${url}/devnet/faults`, { method: "POST", body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`faults: ${res.status}`);
}

async function until(what: string, condition: () => Promise<boolean> | boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

try {
  const { ctx } = bench;
  await insertOrders(ctx, 1000);
  const leader = startScannerLeader(ctx);
  const active = () => ctx.chain.client.status().find((n) => n.active)?.name;
  const cursor = async () => (await readCursor(ctx))?.number ?? -1;
  await until("first blocks scanned", async () => (await cursor()) > 0, 30_000);
  const times: number[] = [];
  for (let i = 0; i < TRIALS; i++) {
    await new Promise((r) => setTimeout(r, Math.random() * BLOCK_TIME_MS));
    const head = (await devnet.info()).head;
    await until("caught up", async () => (await cursor()) >= head, 30_000);
    const started = performance.now();
    await faults(primary, { down: true });
    await until("a block after the failure scanned", async () => (await cursor()) > head, 60_000);
    times.push(performance.now() - started);
    if (active() !== fallback) throw new Error("the block was not scanned on the fallback");
    await faults(primary, {});
    await until("calls back on the preferred node", () => active() === primary, 300_000);
  }
  await leader.stop();
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    JSON.stringify(
      {
        bench: "failover",
        block_time_ms: BLOCK_TIME_MS,
        trials: TRIALS,
        failover_ms: times.map(Math.round),
        p50_ms: Math.round(percentile(sorted, 50)),
        max_ms: Math.round(sorted[sorted.length - 1] ?? NaN),
        goal_ms: 10_000,
        nodes: ctx.chain.client.status().map((n) => ({ node: n.name, calls: n.calls, errors: n.errors })),
        loadavg: loadavg().map((l) => Number(l.toFixed(2))),
      },
      null,
      2,
    ),
  );
} finally {
  await bench.close();
  await devnet.close();
}
