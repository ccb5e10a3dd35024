/**
 * The EVM outbox under load: TRANSFERS native transfers submitted at once from one hot wallet on an
 * Anvil devnet mining a block every BLOCK_TIME_MS, beside a same-run baseline of sequential
 * send-and-wait (read the pending nonce, sign, send, wait for the receipt, next) over BASELINE
 * transfers. The transfers go in as submitMany() batches of BATCH, all batches at once. A scratch PostgreSQL database (BENCH_DATABASE_URL, as the other benches) is dropped on
 * exit. Prints, for the outbox: time to all included, submit -> seen included p50 / p99 / max (as
 * its pass saw them, every 250 ms), the most nonces in flight at once (the node's pending count
 * minus its latest), and exactness (every transfer once, the recipient's balance, the nonce);
 * for the baseline: the same per transfer and its rate projected to TRANSFERS.
 *
 *   npx tsx bench/evm-nonces.ts [transfers=1000] [block_time_ms=1000] [baseline=20] [batch=100]
 */
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { sql } from "drizzle-orm";
import { queryRows } from "../src/db/query-rows.js";
import { runOutbox } from "../src/outbox/run-outbox.js";
import { hotWalletSigner, signerLookup } from "../src/outbox/signers.js";
import { submitMany } from "../src/outbox/submit.js";
import { percentile } from "./chain-lib.js";
import { cleanUp, evmBench } from "./evm-lib.js";

const TRANSFERS = Number(process.argv[2] ?? 1000);
const BLOCK_TIME_MS = Number(process.argv[3] ?? 1000);
const BASELINE = Number(process.argv[4] ?? 20);
const BATCH = Number(process.argv[5] ?? 100);
const ETH = 10n ** 18n;

const ms = (n: number) => `${Math.round(n)} ms`;
const sleep = (n: number) => new Promise((done) => setTimeout(done, n));

async function main(): Promise<void> {
  const { devnet, ctx, hot } = await evmBench({
    chain: "ethereum",
    blockTimeMs: BLOCK_TIME_MS,
    finalityDepth: 64,
    native: 1000n * ETH,
  });
  const nonces = ctx.chains.get("ethereum")?.nonces;
  if (!nonces) throw new Error("the devnet chain sends no nonces");
  const signer = hotWalletSigner(ctx, "ethereum");
  const count = async (tag: string) =>
    Number(BigInt(await devnet.rpc<string>("eth_getTransactionCount", [hot, tag])));
  const balance = async (a: string) => BigInt(await devnet.rpc<string>("eth_getBalance", [a, "latest"]));
  console.log(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );

  // Baseline: one at a time, each waiting for its receipt.
  const baseTo = "0x" + randomBytes(20).toString("hex");
  const baseLatencies: number[] = [];
  const baseStart = performance.now();
  for (let i = 0; i < BASELINE; i++) {
    const started = performance.now();
    const fees = await nonces.fees();
    const signed = await signer.sign({
      nonce: await nonces.nonceOf(hot, "pending"),
      to: baseTo,
      data: "0x",
      value: 1n,
      gasLimit: 21_000n,
      maxPriorityFeePerGas: fees.tip,
      maxFeePerGas: fees.baseFee * 2n + fees.tip,
    });
    await nonces.broadcast(signed.raw);
    while (!(await nonces.receipt(signed.hash))) await sleep(50);
    baseLatencies.push(performance.now() - started);
  }
  const baseTotal = performance.now() - baseStart;

  // The outbox: every transfer submitted at once, the pass running beside.
  const to = "0x" + randomBytes(20).toString("hex");
  const signers = signerLookup(ctx, "ethereum");
  const startNonce = await count("latest");
  let inFlight = 0;
  let done = false;
  const sampler = (async () => {
    while (!done) {
      inFlight = Math.max(inFlight, (await count("pending")) - (await count("latest")));
      await sleep(100);
    }
  })();
  const seen = new Map<string, number>();
  const started = performance.now();
  let allSubmitted = 0;
  // In batches of BATCH, every batch at once: one cursor lock per batch.
  const submitted = Promise.all(
    Array.from({ length: Math.ceil(TRANSFERS / BATCH) }, (_, b) =>
      submitMany(
        ctx,
        "ethereum",
        Array.from({ length: Math.min(BATCH, TRANSFERS - b * BATCH) }, (_, i) => ({
          purpose: "bench",
          ref: String(b * BATCH + i),
          to,
          value: 1n,
          gasLimit: 21_000n,
        })),
      ),
    ),
  ).then(() => (allSubmitted = performance.now() - started));
  const passes: number[] = [];
  while (seen.size < TRANSFERS) {
    const passStarted = performance.now();
    await runOutbox(ctx, "ethereum", { signers });
    passes.push(performance.now() - passStarted);
    const now = performance.now() - started;
    const rows = await queryRows<{ ref: string }>(
      ctx.db,
      sql`SELECT ref FROM evm_transactions WHERE purpose = 'bench' AND state IN ('included', 'final')`,
    );
    for (const r of rows) if (!seen.has(r.ref)) seen.set(r.ref, now);
    if (now > 300_000) throw new Error(`only ${seen.size} of ${TRANSFERS} included after 300 s`);
    await sleep(250);
  }
  const total = performance.now() - started;
  await submitted;
  done = true;
  await sampler;
  const latencies = [...seen.values()].sort((a, b) => a - b);
  const [rowsOnce] = await queryRows<{ n: number; nonces: number }>(
    ctx.db,
    sql`SELECT count(*)::int AS n, count(DISTINCT nonce)::int AS nonces FROM evm_transactions WHERE purpose = 'bench'`,
  );

  console.log(`\nEVM outbox, ${TRANSFERS} transfers at once, Anvil blocks every ${BLOCK_TIME_MS} ms`);
  console.log(`  time to all included:        ${ms(total)}`);
  console.log(
    `  submit -> included p50/p99/max: ${ms(percentile(latencies, 50))} / ${ms(percentile(latencies, 99))} / ${ms(latencies.at(-1) ?? 0)}`,
  );
  console.log(
    `  all submitted (stored and broadcast) after: ${ms(allSubmitted)}; outbox passes: ${passes.length}, longest ${ms(Math.max(...passes))}`,
  );
  console.log(`  most nonces in flight at once: ${inFlight}`);
  console.log(
    `  rows: ${rowsOnce?.n} on ${rowsOnce?.nonces} nonces; recipient ${await balance(to)} wei (expected ${TRANSFERS}); nonce ${startNonce} -> ${await count("latest")}`,
  );
  const sortedBase = [...baseLatencies].sort((a, b) => a - b);
  console.log(`\nBaseline, sequential send-and-wait, ${BASELINE} transfers (same run, same node)`);
  console.log(
    `  total: ${ms(baseTotal)} (${ms(baseTotal / BASELINE)} each); p50/p99/max: ${ms(percentile(sortedBase, 50))} / ${ms(percentile(sortedBase, 99))} / ${ms(sortedBase.at(-1) ?? 0)}`,
  );
  console.log(
    `  projected for ${TRANSFERS}: ${ms((baseTotal / BASELINE) * TRANSFERS)}; the outbox took ${(((baseTotal / BASELINE) * TRANSFERS) / total).toFixed(1)}x less`,
  );
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => cleanUp());
