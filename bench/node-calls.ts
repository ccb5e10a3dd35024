/**
 * Node calls per hour with 1,000 open orders, and the confirmation latency after solidification:
 * the devnet produces a block every 3 s (mainnet's rhythm) and counts every /wallet* and
 * /walletsolidity* request; the service runs every worker loop as `--role worker` does (scanner and
 * confirmer, metrics refresher with its hot-wallet reads, alert evaluator and sender, webhook sender,
 * pool filler, expirer, delegation reconciler), so every call the running service makes is counted.
 * Sweeps are off (SWEEP_ENABLED=false; the hot wallet is still configured and read): their calls are a
 * per-payment cost (bench/sweep-cost.ts), not part of watching 1,000 open orders. Every block
 * carries a USDT payment
 * to one of the open orders (the worst case for confirmations: a transfer becomes due in every
 * block, so the solidified head is read once per block), so gettransactioninfobyblocknum cannot be
 * skipped either. The count over the window is extrapolated to an hour; then the run waits for the
 * window's payments to confirm. Goals: <= 4,000 calls/hour; confirmation p99 <= 3 s after the
 * transfer's block entered the solidified chain.
 *
 *   npx tsx bench/node-calls.ts [window_seconds]
 */
import { startWorkers } from "../src/workers/index.js";
import { encodeTransfer } from "@stablegate/tron/abi";
import { createNodeClient, type NodeClient } from "@stablegate/tron/node-client";
import { signTransaction } from "@stablegate/tron/sign";
import { buildTriggerSmartContract } from "@stablegate/tron/transaction";
import {
  benchContext,
  confirmationLatencies,
  insertOrders,
  percentile,
  spawnDevnet,
  type BenchDevnet,
} from "./chain-lib.js";
import { loadavg } from "node:os";

const WINDOW_SECONDS = Number(process.argv[2] ?? 120);
const BLOCK_TIME_MS = 3000;
const SOLIDIFY_AFTER = 19;
const OPEN_ORDERS = 1000;

async function pay(client: NodeClient, devnet: BenchDevnet, to: string, micro: bigint): Promise<void> {
  const head = await client.getNowBlock();
  const tx = buildTriggerSmartContract({
    owner: devnet.faucetAddress,
    contract: devnet.usdtContract,
    data: encodeTransfer(to, micro),
    feeLimit: 100_000_000,
    refBlock: {
      number: head.block_header.raw_data.number ?? 0,
      hash: head.blockID,
      timestamp: head.block_header.raw_data.timestamp,
    },
  });
  await client.broadcastTransaction(signTransaction(tx, devnet.faucetKey));
}

const devnet = await spawnDevnet(BLOCK_TIME_MS, SOLIDIFY_AFTER);
const bench = await benchContext(devnet, {
  CONFIRMATIONS: "19",
  // The generated dev hot wallet stays configured, so the refresher reads its balance as in production.
  SWEEP_ENABLED: "false",
});
// The traffic generator's own calls go to the same devnet: they are counted and subtracted.
const traffic = createNodeClient({ baseUrl: devnet.url });
try {
  const { ctx } = bench;
  const addresses = await insertOrders(ctx, OPEN_ORDERS);
  const workers = await startWorkers(ctx);
  let stop = false;
  let paid = 0;
  const generator = (async () => {
    while (!stop && paid < OPEN_ORDERS) {
      await pay(traffic, devnet, addresses[paid++] as string, 10_000_000n);
      await new Promise((r) => setTimeout(r, BLOCK_TIME_MS));
    }
  })();
  // Leadership, first cursor, timing samples, and the first payments reaching the solidified
  // chain: from then on a transfer becomes due in every block (the steady state measured).
  await new Promise((r) => setTimeout(r, (SOLIDIFY_AFTER + 3) * BLOCK_TIME_MS));

  await devnet.post("/devnet/requests/reset");
  const trafficBefore = traffic.requestCount;
  const headBefore = (await devnet.info()).head;
  const started = Date.now();
  await new Promise((r) => setTimeout(r, WINDOW_SECONDS * 1000));
  const info = await devnet.info();
  const seconds = (Date.now() - started) / 1000;
  const trafficCalls = traffic.requestCount - trafficBefore;
  stop = true;
  await generator;
  // Let the last payments reach the solidified chain and their outcomes.
  await new Promise((r) => setTimeout(r, (SOLIDIFY_AFTER + 3) * BLOCK_TIME_MS));
  await workers.stop();

  const byPath = { ...info.requests.by_path };
  const serviceCalls = info.requests.total - trafficCalls;
  const blocks = info.head - headBefore;
  const latencies = await confirmationLatencies(ctx, devnet.url, SOLIDIFY_AFTER);
  console.log(
    JSON.stringify(
      {
        bench: "node-calls",
        block_time_ms: BLOCK_TIME_MS,
        open_orders: OPEN_ORDERS,
        payments: paid,
        window_seconds: Math.round(seconds),
        blocks,
        service_calls: serviceCalls,
        calls_per_block: Number((serviceCalls / blocks).toFixed(2)),
        calls_per_hour: Math.round((serviceCalls / seconds) * 3600),
        goal_calls_per_hour: 4000,
        confirmations_measured: latencies.length,
        confirmation_after_solidified_p50_ms: Math.round(percentile(latencies, 50)),
        confirmation_after_solidified_p99_ms: Math.round(percentile(latencies, 99)),
        confirmation_after_solidified_max_ms: Math.round(latencies[latencies.length - 1] ?? NaN),
        goal_confirmation_p99_ms: 3000,
        traffic_generator_calls_excluded: trafficCalls,
        by_path_including_traffic: byPath,
        loadavg: loadavg().map((l) => Number(l.toFixed(2))),
      },
      null,
      2,
    ),
  );
} finally {
  await traffic.close();
  await bench.close();
  await devnet.close();
}
