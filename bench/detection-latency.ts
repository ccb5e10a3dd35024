/**
 * Detection latency: from a block's production (its timestamp; the devnet stamps blocks with its
 * clock when it makes them, on this machine) to the order being `detected` (orders.detected_at),
 * over PAYMENTS payments made at random moments while the devnet produces a block every
 * BLOCK_TIME_MS on its timer. The scanner runs as in production (leader loop, adaptive polling).
 * Then the same payments' confirmation latency after solidification (from the moment the transfer's
 * block entered the solidified chain to the outcome) and the node calls per hour the scanner made
 * over the whole run. Goals: detection p99 <= 1.5 s; confirmation p99 <= 3 s; <= 4,000 calls/hour.
 *
 *   npx tsx bench/detection-latency.ts [payments] [block_time_ms]
 */
import { sql } from "drizzle-orm";
import { startScannerLeader } from "../src/chain/scanner-leader.js";
import { encodeTransfer } from "@stablegate/tron/abi";
import { createNodeClient } from "@stablegate/tron/node-client";
import { signTransaction } from "@stablegate/tron/sign";
import { buildTriggerSmartContract } from "@stablegate/tron/transaction";
import { loadavg } from "node:os";
import { benchContext, confirmationLatencies, insertOrders, percentile, spawnDevnet } from "./chain-lib.js";

const PAYMENTS = Number(process.argv[2] ?? 100);
const BLOCK_TIME_MS = Number(process.argv[3] ?? 3000);
const OPEN_ORDERS = 1000;
const SOLIDIFY_AFTER = 19;

const devnet = await spawnDevnet(BLOCK_TIME_MS);
const bench = await benchContext(devnet);
const payer = createNodeClient({ baseUrl: devnet.url });
try {
  const { ctx } = bench;
  const addresses = await insertOrders(ctx, OPEN_ORDERS);
  const leader = startScannerLeader(ctx);
  await new Promise((r) => setTimeout(r, 2 * BLOCK_TIME_MS)); // leadership, first cursor, timing samples
  await devnet.post("/devnet/requests/reset");
  const countFrom = Date.now();

  for (let i = 0; i < PAYMENTS; i++) {
    await new Promise((r) => setTimeout(r, Math.random() * (BLOCK_TIME_MS / 2)));
    const head = await payer.getNowBlock();
    const tx = buildTriggerSmartContract({
      owner: devnet.faucetAddress,
      contract: devnet.usdtContract,
      data: encodeTransfer(addresses[i] as string, 10_000_000n),
      feeLimit: 100_000_000,
      refBlock: {
        number: head.block_header.raw_data.number ?? 0,
        hash: head.blockID,
        timestamp: head.block_header.raw_data.timestamp,
      },
    });
    await payer.broadcastTransaction(signTransaction(tx, devnet.faucetKey));
  }
  const deadline = Date.now() + 4 * BLOCK_TIME_MS + 5000;
  let rows: { latency_ms: number }[] = [];
  while (Date.now() < deadline) {
    const result = await ctx.db.execute(sql`
      SELECT (extract(epoch FROM o.detected_at - t.block_timestamp) * 1000)::float8 AS latency_ms
      FROM orders o JOIN transfers t ON t.order_id = o.id AND t.tx_hash = o.tx_hash
      WHERE o.detected_at IS NOT NULL`);
    rows = (result as unknown as { rows: { latency_ms: number }[] }).rows;
    if (rows.length >= PAYMENTS) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  // Wait for every outcome (each block is solidified SOLIDIFY_AFTER blocks after it is made).
  const outcomeDeadline = Date.now() + (SOLIDIFY_AFTER + 6) * BLOCK_TIME_MS;
  let confirmed = 0;
  while (Date.now() < outcomeDeadline && confirmed < PAYMENTS) {
    const result = await ctx.db.execute(
      sql`SELECT count(*)::int AS n FROM orders WHERE status IN ('confirmed', 'underpaid', 'overpaid')`,
    );
    confirmed = Number((result as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0);
    await new Promise((r) => setTimeout(r, 500));
  }
  const info = await devnet.info();
  const countSeconds = (Date.now() - countFrom) / 1000;
  await leader.stop();
  // Every node call of the run minus the payer's (payer.requestCount counts all of them, and the
  // payer made none before the reset).
  const scannerCalls = info.requests.total - payer.requestCount;
  const latencies = rows.map((r) => Number(r.latency_ms)).sort((a, b) => a - b);
  const confirmations = await confirmationLatencies(ctx, devnet.url, SOLIDIFY_AFTER);
  console.log(
    JSON.stringify(
      {
        bench: "detection-latency",
        database: "postgresql",
        block_time_ms: BLOCK_TIME_MS,
        open_orders: OPEN_ORDERS,
        payments: PAYMENTS,
        detected: latencies.length,
        p50_ms: Math.round(percentile(latencies, 50)),
        p90_ms: Math.round(percentile(latencies, 90)),
        p99_ms: Math.round(percentile(latencies, 99)),
        max_ms: Math.round(latencies[latencies.length - 1] ?? NaN),
        goal_p99_ms: 1500,
        confirmed: confirmations.length,
        confirmation_after_solidified_p50_ms: Math.round(percentile(confirmations, 50)),
        confirmation_after_solidified_p99_ms: Math.round(percentile(confirmations, 99)),
        goal_confirmation_p99_ms: 3000,
        node_calls: scannerCalls,
        node_calls_per_hour: Math.round((scannerCalls / countSeconds) * 3600),
        goal_node_calls_per_hour: 4000,
        blocks: info.head,
        loadavg: loadavg().map((l) => Number(l.toFixed(2))),
      },
      null,
      2,
    ),
  );
} finally {
  await payer.close();
  await bench.close();
  await devnet.close();
}
