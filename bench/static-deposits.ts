/**
 * Static deposit addresses on an EVM chain under load: ADDRESSES static addresses on `ethereum` (an
 * Anvil devnet mining a block every BLOCK_TIME_MS, `finalized` FINALITY_DEPTH blocks behind the
 * head) and DEPOSITS USDC deposits to them (real transfers from the devnet's faucet, PER_BLOCK a
 * block), with the service's own workers in this process (startWorkers: each chain's scanner
 * leader and confirmer, the webhook sender) on a scratch PostgreSQL database.
 *
 * Times each deposit's `deposit.confirmed` webhook at a real HTTP receiver from the moment its
 * block became final (the bench polls the node's `finalized` tag every 10 ms and stamps each block
 * when it first sees it final). Goal: p99 < 1 s. Checks exactness: every deposit reported once (by
 * idempotency key and by deposit), the amounts reported equal to those sent.
 *
 * Same-run baseline: TRON's figure from bench/deposits.ts (solidified -> deposit.confirmed), run
 * afterwards in a child process with the same number of deposits (TRON_ARGS, default
 * "1000 <deposits> 3000 10" with BENCH_DRAIN_S=10: the sweep window is not what is compared).
 * STATIC_BENCH_TRON=0 skips it.
 *
 *   npx tsx bench/static-deposits.ts [addresses=1000] [deposits=5000] [per_block=100] [block_time_ms=1000]
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { sql } from "drizzle-orm";
import { startEvmDevnet } from "@stablegate/devnet";
import { queryRows } from "../src/db/query-rows.js";
import { createDepositAddress } from "../src/deposits/create-deposit-address.js";
import { createMerchant } from "../src/merchants/create-merchant.js";
import { parseAmount } from "../src/money.js";
import { startWorkers } from "../src/workers/index.js";
import { benchContext, percentile, spawnDevnet } from "./chain-lib.js";

const ADDRESSES = Number(process.argv[2] ?? 1000);
const DEPOSITS = Number(process.argv[3] ?? 5000);
const PER_BLOCK = Number(process.argv[4] ?? 100);
const BLOCK_TIME_MS = Number(process.argv[5] ?? 1000);
const FINALITY_DEPTH = 4;
const DEADLINE_MS = 300_000;

const word = (v: bigint | string) =>
  (typeof v === "string" ? v.replace(/^0x/, "") : v.toString(16)).padStart(64, "0");
const load = () => loadavg()[0]?.toFixed(1) ?? "?";

/** deposit id -> arrival times (ms) of its deposit.confirmed; idempotency keys seen. */
const arrivals = new Map<string, { at: number; amount: string; chain: string }[]>();
const keys = new Map<string, number>();
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString()));
  req.on("end", () => {
    const at = Date.now();
    try {
      const event = JSON.parse(body) as { event: string; deposit_id: string; amount: string; chain: string };
      if (event.event === "deposit.confirmed") {
        const seen = arrivals.get(event.deposit_id) ?? [];
        seen.push({ at, amount: event.amount, chain: event.chain });
        arrivals.set(event.deposit_id, seen);
        const key = String(req.headers["x-idempotency-key"]);
        keys.set(key, (keys.get(key) ?? 0) + 1);
      }
    } catch {
      // not ours
    }
    res.writeHead(200).end("ok");
  });
});
await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

/** Waits for `done` with a deadline; a timed-out wait says what it last saw. */
async function until(what: string, done: () => Promise<boolean | string>, pollMs = 50): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  let last: boolean | string = false;
  while (Date.now() < deadline) {
    last = await done();
    if (last === true) return;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(`timed out waiting for ${what}; last seen: ${String(last)}`);
}

const tron = await spawnDevnet(3000);
const eth = await startEvmDevnet({ port: 0, blockTimeMs: BLOCK_TIME_MS, finalityDepth: FINALITY_DEPTH });
const bench = await benchContext(tron, {
  CHAINS: "tron,ethereum",
  CONFIRMATIONS: "1",
  SWEEP_ENABLED: "false",
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  ETHEREUM_NETWORK: "devnet",
  ETHEREUM_RPC_URL: eth.rpcUrl,
  ETHEREUM_USDT_CONTRACT: eth.usdtContract,
  ETHEREUM_USDC_CONTRACT: eth.usdcContract,
});
const { ctx } = bench;

/** Block number -> when the bench first saw it final (the `finalized` tag at or above it). */
const finalAt = new Map<number, number>();
let watching = true;
let finalSeen = -1;
async function watchFinality(): Promise<void> {
  while (watching) {
    try {
      const block = await eth.rpc<{ number: string } | null>("eth_getBlockByNumber", ["finalized", false]);
      const n = block ? Number(block.number) : -1;
      const now = Date.now();
      for (let b = finalSeen + 1; b <= n; b++) finalAt.set(b, now);
      finalSeen = Math.max(finalSeen, n);
    } catch {
      // the node is busy: read again
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

let workers: Awaited<ReturnType<typeof startWorkers>> | undefined;
let watcher: Promise<void> | undefined;
const loadBefore = load();
try {
  const merchantId = (await createMerchant(ctx, { name: "Bench static EVM", webhookSecret: "bench-secret" }))
    .merchant.id;
  const created = Date.now();
  const addresses: string[] = [];
  for (let i = 0; i < ADDRESSES; i++) {
    const { depositAddress } = await createDepositAddress(ctx, merchantId, {
      customerRef: `customer-${i}`,
      callbackUrl,
      chain: "ethereum",
      currency: "USDC",
    });
    addresses.push(depositAddress.address.toLowerCase());
  }
  const createMs = Date.now() - created;
  workers = await startWorkers(ctx);
  watcher = watchFinality();

  // PER_BLOCK transfers, then wait for the next block, until DEPOSITS are sent.
  let sentMicro = 0n;
  const sendStarted = Date.now();
  for (let sent = 0; sent < DEPOSITS;) {
    const head = await eth.rpc<string>("eth_blockNumber", []);
    const batch = Math.min(PER_BLOCK, DEPOSITS - sent);
    for (let i = 0; i < batch; i++, sent++) {
      const micro = 1_000_000n + BigInt(sent % 1000);
      sentMicro += micro;
      await eth.rpc("eth_sendTransaction", [
        {
          from: eth.faucetAddress,
          to: eth.usdcContract,
          data: "0xa9059cbb" + word(addresses[sent % addresses.length] as string) + word(micro),
          gas: "0x30000",
        },
      ]);
    }
    await until("the next block", async () => (await eth.rpc<string>("eth_blockNumber", [])) !== head, 20);
  }
  const sendMs = Date.now() - sendStarted;

  await until(`${DEPOSITS} deposit.confirmed webhooks`, async () => {
    return arrivals.size >= DEPOSITS || `${arrivals.size} of ${DEPOSITS}`;
  });
  // A little longer, so a duplicate would have time to arrive.
  await new Promise((r) => setTimeout(r, 2000));

  const rows = await queryRows<{ id: string; block_number: string; amount: string }>(
    ctx.db,
    sql`SELECT id::text AS id, block_number::text AS block_number, amount::text AS amount FROM deposits
        WHERE chain = 'ethereum' AND status = 'confirmed'`,
  );
  const latencies: number[] = [];
  let reportedMicro = 0n;
  for (const row of rows) {
    const first = arrivals.get(row.id)?.[0];
    const final = finalAt.get(Number(row.block_number));
    if (first && final !== undefined) latencies.push(first.at - final);
    if (first) reportedMicro += parseAmount(first.amount) ?? 0n;
  }
  latencies.sort((a, b) => a - b);
  const duplicates = [...arrivals.values()].reduce((n, l) => n + l.length - 1, 0);
  const evm = {
    bench: "static-deposits",
    chain: "ethereum (Anvil)",
    block_time_ms: BLOCK_TIME_MS,
    finality_depth: FINALITY_DEPTH,
    addresses: ADDRESSES,
    address_creation_ms_each: Number((createMs / ADDRESSES).toFixed(2)),
    deposits_sent: DEPOSITS,
    per_block: PER_BLOCK,
    send_ms: sendMs,
    deposits_confirmed: rows.length,
    webhooks_confirmed_unique: arrivals.size,
    webhooks_confirmed_duplicates: duplicates,
    idempotency_keys_repeated: [...keys.values()].filter((n) => n > 1).length,
    sent_equals_reported: sentMicro === reportedMicro,
    final_to_webhook_p50_ms: Math.round(percentile(latencies, 50)),
    final_to_webhook_p99_ms: Math.round(percentile(latencies, 99)),
    final_to_webhook_max_ms: Math.round(latencies.at(-1) ?? NaN),
    goal_p99_ms: 1000,
    load_average: `${loadBefore} -> ${load()}`,
  };
  console.log(JSON.stringify(evm, null, 2));
} finally {
  watching = false;
  await watcher;
  await workers?.stop();
  await bench.close();
  await eth.close();
  await tron.close();
  receiver.close();
}

if (process.env.STATIC_BENCH_TRON !== "0") {
  // The same-run baseline: TRON's static deposits, bench/deposits.ts, in a child process.
  const args = (process.env.TRON_ARGS ?? `1000 ${DEPOSITS} 3000 10`).split(" ");
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn("npx", ["tsx", "bench/deposits.ts", ...args], {
      env: { ...process.env, BENCH_DRAIN_S: process.env.BENCH_DRAIN_S ?? "10" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(text) : reject(new Error(`bench/deposits.ts exited ${code}`)),
    );
  });
  const json = out.slice(out.indexOf("{"), out.lastIndexOf("}") + 1);
  const tronResult = JSON.parse(json) as Record<string, unknown>;
  console.log(
    JSON.stringify(
      {
        baseline: `bench/deposits.ts ${args.join(" ")} (TRON, same run)`,
        solidified_to_webhook_p50_ms: tronResult.solidified_to_webhook_p50_ms,
        solidified_to_webhook_p99_ms: tronResult.solidified_to_webhook_p99_ms,
        solidified_to_webhook_max_ms: tronResult.solidified_to_webhook_max_ms,
        webhooks_confirmed_unique: tronResult.webhooks_confirmed_unique,
        webhooks_confirmed_duplicates: tronResult.webhooks_confirmed_duplicates,
      },
      null,
      2,
    ),
  );
}
