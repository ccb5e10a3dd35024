/**
 * Finality -> outcome webhook on an EVM chain: PAYMENTS orders on `ethereum` (an Anvil devnet,
 * blocks only on demand, `finalized` FINALITY_DEPTH blocks behind the head) all paid in one block;
 * once every order is detected, the finality depth is mined, and from the moment that call returns
 * (the paying block is final) the bench times each order's `confirmed` webhook at a real HTTP
 * receiver. The service's own workers run in this process (startWorkers: the chain's scanner
 * leader, its confirmer and the webhook sender) on a scratch PostgreSQL database. Same-run
 * baseline: one payment alone in its block, measured the same way first. Goal: p99 < 1 s at 300
 * payments per block.
 *
 *   npx tsx bench/evm-webhook-latency.ts [payments=300]
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { sql } from "drizzle-orm";
import { startEvmDevnet } from "@stablegate/devnet";
import { queryRows } from "../src/db/query-rows.js";
import { createMerchant } from "../src/merchants/create-merchant.js";
import { createOrder } from "../src/payments/create-order.js";
import { fillAddressPools } from "../src/wallet/fill-address-pool.js";
import { startWorkers } from "../src/workers/index.js";
import { benchContext, percentile, spawnDevnet } from "./chain-lib.js";

const PAYMENTS = Number(process.argv[2] ?? 300);
const FINALITY_DEPTH = 4;
/** Anvil's interval mining between the rounds' paying blocks. */
const BLOCK_SECONDS = 1;
const DEADLINE_MS = 120_000;

const word = (v: bigint | string) =>
  (typeof v === "string" ? v.replace(/^0x/, "") : v.toString(16)).padStart(64, "0");

const arrivals = new Map<string, number>();
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString()));
  req.on("end", () => {
    const at = Date.now();
    try {
      const event = JSON.parse(body) as { event: string; order_id: string };
      if (event.event === "payment.confirmed") {
        if (!arrivals.has(event.order_id)) arrivals.set(event.order_id, at);
      }
    } catch {
      // not ours
    }
    res.writeHead(200).end("ok");
  });
});
await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const tron = await spawnDevnet(3000);
const eth = await startEvmDevnet({
  port: 0,
  blockTimeMs: BLOCK_SECONDS * 1000,
  finalityDepth: FINALITY_DEPTH,
});
const bench = await benchContext(tron, {
  CHAINS: "tron,ethereum",
  CONFIRMATIONS: String(FINALITY_DEPTH),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  ETHEREUM_NETWORK: "devnet",
  ETHEREUM_RPC_URL: eth.rpcUrl,
  ETHEREUM_USDT_CONTRACT: eth.usdtContract,
  ETHEREUM_USDC_CONTRACT: eth.usdcContract,
});
const { ctx } = bench;
const workers = await startWorkers(ctx);

/** Waits for `done` with a deadline; a timed-out wait says what it last saw. */
async function until(what: string, done: () => Promise<boolean | string>, everyMs = 20): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  let last: boolean | string = false;
  while (Date.now() < deadline) {
    last = await done();
    if (last === true) return;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}; last seen: ${String(last)}`);
}

async function round(label: string, count: number): Promise<number[]> {
  const orders: { id: string; address: string }[] = [];
  for (let i = 0; i < count; i++) {
    const created = await createOrder(
      ctx,
      { id: merchantId },
      { externalId: `${label}-${i}`, amount: "10", currency: "USDC", chain: "ethereum", callbackUrl },
    );
    orders.push({ id: created.order.id, address: created.order.address });
  }
  // All payments in one block: interval mining paused while they are sent, then one block mined.
  await eth.rpc("evm_setIntervalMining", [0]);
  for (const order of orders) {
    await eth.rpc("eth_sendTransaction", [
      {
        from: eth.faucetAddress,
        to: eth.usdcContract,
        data: "0xa9059cbb" + word(order.address.toLowerCase()) + word(10_000_000n),
        gas: "0x30000",
      },
    ]);
  }
  const paid = await eth.mine(1);
  const ids = orders.map((o) => o.id);
  await until(`${count} orders detected`, async () => {
    const [row] = await queryRows<{ n: string }>(
      ctx.db,
      sql`SELECT count(*)::text AS n FROM orders WHERE id = ANY(${`{${ids.join(",")}}`}::uuid[])
            AND status <> 'pending'`,
    );
    return Number(row?.n) === count || `${row?.n} of ${count} detected`;
  });
  // Blocks every second again (as a chain makes them, so the scanner polls on its learnt schedule);
  // the paying block is final when block paid + FINALITY_DEPTH exists: the moment this process
  // first sees it (polling every 5 ms) is the start of the clock.
  await eth.rpc("evm_setIntervalMining", [BLOCK_SECONDS]);
  const head = paid + FINALITY_DEPTH;
  await until(
    `block ${head}`,
    async () => {
      const n = Number(BigInt(await eth.rpc<string>("eth_blockNumber")));
      return n >= head || `head ${n}`;
    },
    5,
  );
  const final = Date.now();
  // Phases, seen by a probe every 10 ms: the scanner reaching the new head, the outcomes committed.
  const phase = { scanned: NaN, firstOutcome: NaN, allOutcomes: NaN };
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const [row] = await queryRows<{ cursor: string; settled: string }>(
        ctx.db,
        sql`SELECT (SELECT block_number::text FROM scanner_cursor WHERE name = 'evm:ethereum') AS cursor,
                   (SELECT count(*)::text FROM orders WHERE id = ANY(${`{${ids.join(",")}}`}::uuid[])
                      AND status NOT IN ('pending', 'detected')) AS settled`,
      );
      const at = Date.now() - final;
      if (Number.isNaN(phase.scanned) && Number(row?.cursor) >= head) phase.scanned = at;
      if (Number.isNaN(phase.firstOutcome) && Number(row?.settled) > 0) phase.firstOutcome = at;
      if (Number.isNaN(phase.allOutcomes) && Number(row?.settled) === count) phase.allOutcomes = at;
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  await until(`${count} confirmed webhooks`, async () => {
    const got = ids.filter((id) => arrivals.has(id)).length;
    return got === count || `${got} of ${count} webhooks`;
  });
  probing = false;
  await probe;
  phases.push(phase);
  return ids.map((id) => (arrivals.get(id) as number) - final).sort((a, b) => a - b);
}

const phases: { scanned: number; firstOutcome: number; allOutcomes: number }[] = [];
const showPhases = (p: (typeof phases)[number] | undefined) =>
  p
    ? `(scanner at the final head +${p.scanned} ms, first outcome committed +${p.firstOutcome} ms, all +${p.allOutcomes} ms)`
    : "";

let merchantId = "";
try {
  await fillAddressPools(ctx);
  merchantId = (await createMerchant(ctx, { name: "Bench EVM", webhookSecret: "bench-secret" })).merchant.id;
  const load = () =>
    loadavg()
      .slice(0, 1)
      .map((l) => l.toFixed(1))
      .join("");
  const baseline = await round("one", 1);
  const loadBefore = load();
  const many = await round("many", PAYMENTS);
  const show = (xs: number[]) =>
    `p50 ${percentile(xs, 50)} ms, p99 ${percentile(xs, 99)} ms, max ${xs[xs.length - 1]} ms`;
  console.log(`finality -> confirmed webhook on ethereum (Anvil, finalized ${FINALITY_DEPTH} blocks behind)`);
  console.log(`  baseline, 1 payment in its block: ${baseline[0]} ms ${showPhases(phases[0])}`);
  console.log(
    `  ${PAYMENTS} payments in one block: ${show(many)} (goal p99 < 1000 ms: ${percentile(many, 99) < 1000 ? "met" : "MISSED"}) ${showPhases(phases[1])}`,
  );
  console.log(`  load average ${loadBefore} -> ${load()}`);
} finally {
  await workers.stop();
  await bench.close();
  await eth.close();
  await tron.close();
  receiver.close();
}
