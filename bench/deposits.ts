/**
 * Static deposit addresses under load: ADDRESSES static addresses, DEPOSITS deposits to
 * them (real signed USDT transfers from the devnet faucet, spread over SEND_BLOCKS blocks) on a
 * devnet in its own process with BLOCK_TIME_MS blocks and solidification 19 blocks behind, with the
 * production loops: scanner leader, webhook sender (woken by confirmations) and the sweeper.
 *
 * Prints:
 *  - solidified -> deposit.confirmed webhook received (the receiver's clock), p50/p99/max: the goal
 *    is p99 <= 1,000 ms; and block -> webhook (the whole wait: confirmations + solidification);
 *  - where that time goes: solidified -> the confirming transaction starts (deposits.confirmed_at:
 *    the scanner's poll, the block's scan, the solidified-head reading), and from there -> webhook
 *    received (the confirming transaction, the sender's pick-up and the HTTP attempt);
 *  - sweeps completed per minute from the sweeper's first claim to its last completion (the sweep
 *    window SWEEP_WINDOW_S, counted from the first send, then a bounded drain of the rounds in
 *    flight, BENCH_DRAIN_S, default 240);
 *  - the exactness checks: every deposit.confirmed exactly once (by idempotency key and by deposit),
 *    no deposit assigned to two sweeps, the cold wallet's USDT equal to the sum of the deposits of
 *    the finished rounds (a round still in flight when the window ends has marked its deposits but
 *    not landed), the settlements by status and step, and how many addresses are left with
 *    unswept confirmed deposits at or above SWEEP_MIN_USDT (20) after the drain;
 *  - the load average of the (shared) machine.
 * BENCH_DETAIL=1 also prints, to stderr, each address's deposits with their sweep rounds and costs.
 * Bounded: sending lasts SEND_BLOCKS blocks, confirmation ~20 blocks more, sweeping SWEEP_WINDOW_S.
 *
 *   npx tsx bench/deposits.ts [addresses=1000] [deposits=5000] [block_time_ms=3000] [sweep_window_s=240]
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { sql } from "drizzle-orm";
import { encodeBalanceOf, encodeTransfer } from "@stablegate/tron/abi";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import { createNodeClient } from "@stablegate/tron/node-client";
import { privateKeyToHex, signTransaction } from "@stablegate/tron/sign";
import { buildTriggerSmartContract } from "@stablegate/tron/transaction";
import { randomBytes } from "node:crypto";
import { startScannerLeader } from "../src/chain/scanner-leader.js";
import { queryRows } from "../src/db/query-rows.js";
import { createDepositAddress } from "../src/deposits/create-deposit-address.js";
import { createMerchant } from "../src/merchants/create-merchant.js";
import { runDueSweeps } from "../src/sweeps/run-sweeps.js";
import { startWebhookSender } from "../src/workers/webhook-sender.js";
import { benchContext, percentile, spawnDevnet } from "./chain-lib.js";

const ADDRESSES = Number(process.argv[2] ?? 1000);
const DEPOSITS = Number(process.argv[3] ?? 5000);
const BLOCK_TIME_MS = Number(process.argv[4] ?? 3000);
const SWEEP_WINDOW_S = Number(process.argv[5] ?? 240);
const SOLIDIFY_AFTER = 19;
const SEND_BLOCKS = 20;
const SWEEP_MIN_USDT = 20n;
const DRAIN_S = Number(process.env.BENCH_DRAIN_S ?? 240);
const USDT = 1_000_000n;

const devnet = await spawnDevnet(BLOCK_TIME_MS, SOLIDIFY_AFTER);
const hotKey = randomBytes(32);
const hotAddress = addressFromPrivateKey(hotKey);
const cold = addressFromPrivateKey(randomBytes(32));
const bench = await benchContext(devnet, {
  HOT_WALLET_PRIVATE_KEY: privateKeyToHex(hotKey),
  COLD_WALLET_ADDRESS: cold,
  SWEEP_ENABLED: "true",
  SWEEP_MODE: "burn",
  // Whole USDT (20n / USDT was 0: every deposit made its address due).
  SWEEP_MIN_USDT: String(SWEEP_MIN_USDT),
  DEPOSIT_MIN_USDT: "1",
  CONFIRMATIONS: String(SOLIDIFY_AFTER),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
});
const payer = createNodeClient({ baseUrl: devnet.url });

// The merchant's receiver: arrival time per idempotency key.
const arrivals = new Map<string, { at: number; depositId: string; txHash: string }[]>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const at = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      event: string;
      deposit_id: string;
      tx_hash: string;
    };
    if (body.event === "deposit.confirmed") {
      const key = String(req.headers["x-idempotency-key"]);
      arrivals.set(key, [
        ...(arrivals.get(key) ?? []),
        { at, depositId: body.deposit_id, txHash: body.tx_hash },
      ]);
    }
    res.writeHead(200).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

const stopSweeper = new AbortController();
try {
  const { ctx } = bench;
  await devnet.post("/devnet/fund", { address: hotAddress, trx: "10000000" });
  const { merchant } = await createMerchant(ctx, { name: "Top-ups", webhookSecret: "whsec-bench-deposits" });
  const createStart = Date.now();
  const addresses: string[] = [];
  for (let i = 0; i < ADDRESSES; i++) {
    const { depositAddress } = await createDepositAddress(ctx, merchant.id, {
      customerRef: `customer-${i}`,
      callbackUrl: hookUrl,
    });
    addresses.push(depositAddress.address);
  }
  const createMs = Date.now() - createStart;

  const sender = startWebhookSender(ctx, { concurrency: 32 });
  const leader = startScannerLeader(ctx, { onOutcome: () => sender.wake() });
  const sweepTimes: number[] = [];
  let firstClaimAt = NaN;
  const sweeper = (async () => {
    while (!stopSweeper.signal.aborted) {
      const result = await runDueSweeps(ctx, { limit: 20, owner: "bench-sweeper" }).catch(() => null);
      if ((result?.claimed ?? 0) > 0 && Number.isNaN(firstClaimAt)) firstClaimAt = Date.now();
      for (let i = 0; i < (result?.completed ?? 0); i++) sweepTimes.push(Date.now());
      if (!result || result.claimed === 0) await new Promise((r) => setTimeout(r, 500));
    }
  })();
  await new Promise((r) => setTimeout(r, 2 * BLOCK_TIME_MS));

  // DEPOSITS transfers, round-robin over the addresses, SEND_BLOCKS blocks' worth at a time.
  const perBlock = Math.ceil(DEPOSITS / SEND_BLOCKS);
  let expectedTotal = 0n;
  const sendStart = Date.now();
  for (let sent = 0; sent < DEPOSITS;) {
    const head = await payer.getNowBlock();
    const ref = {
      number: head.block_header.raw_data.number ?? 0,
      hash: head.blockID,
      timestamp: head.block_header.raw_data.timestamp,
    };
    const batch = Math.min(perBlock, DEPOSITS - sent);
    await Promise.all(
      Array.from({ length: batch }, async (_, j) => {
        const n = sent + j;
        // Mostly 1-10 USDT, one in ten below the minimum (0.5).
        const amount = n % 10 === 9 ? 500_000n : BigInt(1 + (n % 10)) * USDT;
        expectedTotal += amount;
        const tx = buildTriggerSmartContract({
          owner: devnet.faucetAddress,
          contract: devnet.usdtContract,
          data: encodeTransfer(addresses[n % ADDRESSES] as string, amount),
          feeLimit: 100_000_000,
          refBlock: ref,
          nowMs: Date.now() + n, // distinct bytes for equal transfers
        });
        await payer.broadcastTransaction(signTransaction(tx, devnet.faucetKey));
      }),
    );
    sent += batch;
    await new Promise((r) =>
      setTimeout(r, Math.max(0, sendStart + (sent / perBlock) * BLOCK_TIME_MS - Date.now())),
    );
  }
  const sendMs = Date.now() - sendStart;

  // Every deposit confirmed and its webhook received, then the sweep window.
  const confirmDeadline = Date.now() + (SOLIDIFY_AFTER + SEND_BLOCKS + 20) * BLOCK_TIME_MS;
  while (Date.now() < confirmDeadline && arrivals.size < DEPOSITS)
    await new Promise((r) => setTimeout(r, 500));
  const confirmedAt = Date.now();
  const sweepDeadline = sendStart + SWEEP_WINDOW_S * 1000;
  const pendingSweeps = async () =>
    Number(
      (
        await queryRows<{ n: string }>(
          ctx.db,
          sql`SELECT count(*)::text AS n FROM settlements WHERE status IN ('waiting', 'active')`,
        )
      )[0]?.n ?? 0,
    );
  while (Date.now() < sweepDeadline && (await pendingSweeps()) > 0)
    await new Promise((r) => setTimeout(r, 1000));
  const windowEnd = Date.now();
  // Drain: the rounds in flight finish (bounded), so the exactness checks see every round landed.
  const drainDeadline = Date.now() + DRAIN_S * 1000;
  while (Date.now() < drainDeadline && (await pendingSweeps()) > 0)
    await new Promise((r) => setTimeout(r, 1000));
  const drainedS = Math.round((Date.now() - windowEnd) / 1000);
  stopSweeper.abort();
  await sweeper;
  await leader.stop();
  await sender.stop();

  // Latencies: the solidified moment of block B is the timestamp of block B + SOLIDIFY_AFTER.
  const blockOf = new Map(
    (
      await queryRows<{ id: string; block: string; ts: string; confirmed: string }>(
        ctx.db,
        sql`SELECT id::text AS id, block_number::text AS block,
                   (extract(epoch FROM block_timestamp) * 1000)::bigint::text AS ts,
                   (extract(epoch FROM confirmed_at) * 1000)::bigint::text AS confirmed FROM deposits`,
      )
    ).map((r) => [r.id, { block: Number(r.block), ts: Number(r.ts), confirmed: Number(r.confirmed) }]),
  );
  const stamps = new Map<number, number>();
  const stamp = async (n: number) => {
    if (!stamps.has(n)) {
      const block = (await (
        await fetch(`${devnet.url}/wallet/getblockbynum`, {
          method: "POST",
          body: JSON.stringify({ num: n }),
        })
      ).json()) as { block_header?: { raw_data?: { timestamp?: number } } };
      stamps.set(n, block.block_header?.raw_data?.timestamp ?? NaN);
    }
    return stamps.get(n) as number;
  };
  const afterSolid: number[] = [];
  const afterBlock: number[] = [];
  const solidToConfirm: number[] = [];
  const confirmToHook: number[] = [];
  for (const list of arrivals.values()) {
    const first = list[0];
    const deposit = first && blockOf.get(first.depositId);
    if (!first || !deposit) continue;
    const solidAt = await stamp(deposit.block + SOLIDIFY_AFTER);
    afterSolid.push(first.at - solidAt);
    afterBlock.push(first.at - deposit.ts);
    solidToConfirm.push(deposit.confirmed - solidAt);
    confirmToHook.push(first.at - deposit.confirmed);
  }
  for (const list of [afterSolid, afterBlock, solidToConfirm, confirmToHook]) list.sort((a, b) => a - b);

  const [check] = await queryRows<Record<string, string>>(
    ctx.db,
    sql`SELECT
      (SELECT count(*) FROM deposits WHERE status = 'confirmed')::text AS confirmed,
      (SELECT count(*) FROM deposits WHERE status <> 'confirmed')::text AS not_confirmed,
      (SELECT count(*) FROM deposits WHERE below_minimum)::text AS below_minimum,
      (SELECT coalesce(sum(amount), 0) FROM deposits WHERE status = 'confirmed')::text AS confirmed_total,
      (SELECT count(*) FROM deposits WHERE settlement_id IS NOT NULL)::text AS swept_deposits,
      (SELECT coalesce(sum(amount), 0) FROM deposits WHERE settlement_id IS NOT NULL)::text AS swept_total,
      (SELECT coalesce(sum(d.amount), 0) FROM deposits d JOIN settlements s ON s.id = d.settlement_id
         WHERE d.sweep_round < s.round OR s.status = 'completed')::text AS swept_total_finished_rounds,
      (SELECT count(*) FROM (SELECT tx_hash, log_index FROM deposits WHERE status <> 'reverted'
         GROUP BY 1, 2 HAVING count(*) > 1) d)::text AS duplicate_deposits,
      (SELECT count(*) FROM sweep_costs)::text AS sweep_rounds,
      (SELECT coalesce(sum(amount), 0) FROM sweep_costs)::text AS sweep_costs_total,
      (SELECT count(*) FROM (SELECT da.id FROM deposit_addresses da JOIN deposits d ON d.deposit_address_id = da.id
         WHERE d.status = 'confirmed' AND d.settlement_id IS NULL GROUP BY da.id
         HAVING sum(d.amount) >= ${(SWEEP_MIN_USDT * USDT).toString()}::numeric) x)::text AS left_behind_addresses,
      (SELECT count(*) FROM settlements WHERE status IN ('waiting', 'active'))::text AS sweeps_in_flight,
      (SELECT string_agg(status || ':' || coalesce(step, '-') || '=' || n, ' ' ORDER BY status, step) FROM
         (SELECT status, step, count(*) AS n FROM settlements GROUP BY 1, 2) x) AS settlements_by_status_step,
      (SELECT count(*) FROM settlements WHERE status = 'failed')::text AS sweeps_failed`,
  );
  if (process.env.BENCH_DETAIL) {
    console.error(
      JSON.stringify(
        await queryRows(
          ctx.db,
          sql`SELECT d.to_address, sum(d.amount)::text AS total, count(*)::text AS n,
                     string_agg(coalesce(d.sweep_round::text, '-'), ',' ORDER BY d.block_number) AS rounds,
                     (SELECT string_agg(c.round || ':' || c.amount, ',' ORDER BY c.round) FROM sweep_costs c
                       JOIN settlements s ON s.id = c.settlement_id WHERE s.address = d.to_address) AS costs,
                     (SELECT s.status || ':' || coalesce(s.step, '-') || ':' || s.round FROM settlements s
                       WHERE s.address = d.to_address AND s.order_id IS NULL) AS settlement
              FROM deposits d GROUP BY d.to_address ORDER BY 2`,
        ),
      ),
    );
  }
  const coldBalance = await payer.triggerConstantContract({
    owner: cold,
    contract: devnet.usdtContract,
    data: encodeBalanceOf(cold),
  });
  const coldUsdt = BigInt(`0x${coldBalance.constant_result?.[0] ?? "0"}`);
  const keys = [...arrivals.values()];
  const sweepSpanMin = sweepTimes.length > 0 ? ((sweepTimes.at(-1) as number) - firstClaimAt) / 60_000 : NaN;
  console.log(
    JSON.stringify(
      {
        bench: "deposits",
        database: "postgresql",
        block_time_ms: BLOCK_TIME_MS,
        solidify_after: SOLIDIFY_AFTER,
        addresses: ADDRESSES,
        address_creation_ms_each: Number((createMs / ADDRESSES).toFixed(2)),
        deposits_sent: DEPOSITS,
        send_ms: sendMs,
        sent_total_usdt: (Number(expectedTotal) / 1e6).toFixed(6),
        webhooks_confirmed_unique: arrivals.size,
        webhooks_confirmed_duplicates: keys.reduce((n, l) => n + l.length - 1, 0),
        distinct_deposits_reported: new Set(keys.map((l) => l[0]?.depositId)).size,
        solidified_to_webhook_p50_ms: Math.round(percentile(afterSolid, 50)),
        solidified_to_webhook_p99_ms: Math.round(percentile(afterSolid, 99)),
        solidified_to_webhook_max_ms: Math.round(afterSolid.at(-1) ?? NaN),
        goal_p99_ms: 1000,
        solidified_to_confirming_p50_ms: Math.round(percentile(solidToConfirm, 50)),
        solidified_to_confirming_p99_ms: Math.round(percentile(solidToConfirm, 99)),
        confirming_to_webhook_p50_ms: Math.round(percentile(confirmToHook, 50)),
        confirming_to_webhook_p99_ms: Math.round(percentile(confirmToHook, 99)),
        block_to_webhook_p50_ms: Math.round(percentile(afterBlock, 50)),
        block_to_webhook_p99_ms: Math.round(percentile(afterBlock, 99)),
        all_confirmed_after_s: Math.round((confirmedAt - sendStart) / 1000),
        sweeps_completed: sweepTimes.length,
        // From the sweeper's first claim to its last completion: the wait of the first rounds for
        // the solidified chain (funding, then the transfer) included.
        sweeps_per_minute: Number((sweepTimes.length / (sweepSpanMin || NaN)).toFixed(1)),
        sweeps_first_claim_to_last_completion_s: Math.round(sweepSpanMin * 60),
        sweep_window_s: SWEEP_WINDOW_S,
        drained_after_window_s: drainedS,
        sweep_min_usdt: SWEEP_MIN_USDT.toString(),
        ...check,
        cold_wallet_usdt: coldUsdt.toString(),
        // After the drain every round has landed: the cold wallet holds exactly the marked deposits.
        cold_equals_swept: coldUsdt.toString() === check?.swept_total,
        cold_equals_swept_finished_rounds: coldUsdt.toString() === check?.swept_total_finished_rounds,
        loadavg: loadavg().map((l) => Number(l.toFixed(2))),
      },
      null,
      2,
    ),
  );
} finally {
  stopSweeper.abort();
  receiver.close();
  await payer.close();
  await bench.close();
  await devnet.close();
}
