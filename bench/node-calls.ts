/**
 * Node calls per hour with 1,000 open orders: the devnet produces a block every 3 s (mainnet's
 * rhythm) and counts every /wallet* and /walletsolidity* request; the scanner runs as in production.
 * Every block carries some traffic (a USDT transfer to a stranger, so gettransactioninfobyblocknum
 * cannot be skipped, as on mainnet), and a few orders are paid and confirmed during the window.
 * The count over the window is extrapolated to an hour. Goal: <= 2,500 calls/hour.
 *
 *   npx tsx bench/node-calls.ts [window_seconds]
 */
import { randomBytes } from "node:crypto";
import { startScannerLeader } from "../src/chain/scanner-leader.js";
import { encodeTransfer } from "../src/tron/abi.js";
import { hexToBase58 } from "../src/tron/address.js";
import { createNodeClient, type NodeClient } from "../src/tron/node-client.js";
import { signTransaction } from "../src/tron/sign.js";
import { buildTriggerSmartContract } from "../src/tron/transaction.js";
import { benchContext, insertOrders, spawnDevnet, type BenchDevnet } from "./chain-lib.js";

const WINDOW_SECONDS = Number(process.argv[2] ?? 90);
const BLOCK_TIME_MS = 3000;
const OPEN_ORDERS = 1000;
const PAID_ORDERS = 5;

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

const devnet = await spawnDevnet(BLOCK_TIME_MS);
const bench = await benchContext(devnet, { CONFIRMATIONS: "19" });
// The traffic generator's own calls go to the same devnet: they are counted and subtracted.
const traffic = createNodeClient({ baseUrl: devnet.url });
try {
  const { ctx } = bench;
  const addresses = await insertOrders(ctx, OPEN_ORDERS);
  const leader = startScannerLeader(ctx);
  let stop = false;
  const generator = (async () => {
    let paid = 0;
    while (!stop) {
      const to =
        paid < PAID_ORDERS && Math.random() < 0.25
          ? (addresses[paid++] as string)
          : hexToBase58(`41${randomBytes(20).toString("hex")}`);
      await pay(traffic, devnet, to, 10_000_000n);
      await new Promise((r) => setTimeout(r, BLOCK_TIME_MS));
    }
  })();
  await new Promise((r) => setTimeout(r, 3 * BLOCK_TIME_MS)); // leadership, first cursor, timing samples

  await devnet.post("/devnet/requests/reset");
  const trafficBefore = traffic.requestCount;
  const headBefore = (await devnet.info()).head;
  const started = Date.now();
  await new Promise((r) => setTimeout(r, WINDOW_SECONDS * 1000));
  const info = await devnet.info();
  const seconds = (Date.now() - started) / 1000;
  stop = true;
  await generator;
  await leader.stop();

  const trafficCalls = traffic.requestCount - trafficBefore;
  const byPath = { ...info.requests.by_path };
  const scannerCalls = info.requests.total - trafficCalls;
  const blocks = info.head - headBefore;
  console.log(
    JSON.stringify(
      {
        bench: "node-calls",
        block_time_ms: BLOCK_TIME_MS,
        open_orders: OPEN_ORDERS,
        window_seconds: Math.round(seconds),
        blocks,
        scanner_calls: scannerCalls,
        calls_per_block: Number((scannerCalls / blocks).toFixed(2)),
        calls_per_hour: Math.round((scannerCalls / seconds) * 3600),
        goal_calls_per_hour: 2500,
        traffic_generator_calls_excluded: trafficCalls,
        by_path_including_traffic: byPath,
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
