/**
 * Detection latency: from a block's production (its timestamp; the devnet stamps blocks with its
 * clock when it makes them, on this machine) to the order being `detected` (orders.detected_at),
 * over PAYMENTS payments made at random moments while the devnet produces a block every
 * BLOCK_TIME_MS on its timer. The scanner runs as in production (leader loop, adaptive polling).
 * Goal: p99 <= 1.5 s.
 *
 *   npx tsx bench/detection-latency.ts [payments] [block_time_ms]
 */
import { sql } from "drizzle-orm";
import { startScannerLeader } from "../src/chain/scanner-leader.js";
import { encodeTransfer } from "../src/tron/abi.js";
import { createNodeClient } from "../src/tron/node-client.js";
import { signTransaction } from "../src/tron/sign.js";
import { buildTriggerSmartContract } from "../src/tron/transaction.js";
import { benchContext, insertOrders, percentile, spawnDevnet } from "./chain-lib.js";

const PAYMENTS = Number(process.argv[2] ?? 100);
const BLOCK_TIME_MS = Number(process.argv[3] ?? 3000);
const OPEN_ORDERS = 1000;

const devnet = await spawnDevnet(BLOCK_TIME_MS);
const bench = await benchContext(devnet);
const payer = createNodeClient({ baseUrl: devnet.url });
try {
  const { ctx } = bench;
  const addresses = await insertOrders(ctx, OPEN_ORDERS);
  const leader = startScannerLeader(ctx);
  await new Promise((r) => setTimeout(r, 2 * BLOCK_TIME_MS)); // leadership, first cursor, timing samples

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
  await leader.stop();
  const latencies = rows.map((r) => Number(r.latency_ms)).sort((a, b) => a - b);
  const info = await devnet.info();
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
        blocks: info.head,
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
