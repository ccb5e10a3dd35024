/**
 * Refunds and payouts under load: PAYOUTS approved payouts sent from the hot wallet by
 * two real `stablegate serve --role worker` processes, on a devnet in its own process (BLOCK_TIME_MS
 * blocks, solidified SOLIDIFY_AFTER blocks behind) and a scratch PostgreSQL database, once in burn
 * mode and once in delegate mode (the hot wallet staked for the energy of every transfer).
 *
 * Per mode: a real payment credits the merchant (confirmed by the workers' own scanner and
 * confirmer); the payouts are created and approved in bulk (createPayout + decidePayout, as the
 * API does), to RECIPIENTS addresses in turn; then the bench waits for every one to complete.
 * Prints, per mode:
 *  - payouts completed per minute (first approval -> last completion);
 *  - approval -> completed (the worker saw its block solidified), p50 / p99 / max;
 *  - TRX burnt per payout (from the payouts' records) and the hot wallet's real TRX loss;
 *  - `stablegate check-ledger` as a process: its own check time and the process's wall time;
 *  - exactness: every payout completed, one transaction each, the recipients' USDT equal to what
 *    was paid to them.
 * Scratch databases, worker processes and the devnet are removed on every exit (errors and Ctrl-C
 * included).
 *
 *   npx tsx bench/payouts.ts [payouts=1000] [delegate_payouts=payouts] [block_time_ms=1000] [recipients=100] [float_factor=1]
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import { encodeBalanceOf } from "@stablegate/tron/abi";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import { createNodeClient } from "@stablegate/tron/node-client";
import { privateKeyToHex } from "@stablegate/tron/sign";
import { stakeHotWallet } from "../src/chain/embedded-devnet.js";
import { queryRows } from "../src/db/query-rows.js";
import { createMerchant } from "../src/merchants/create-merchant.js";
import { createOrder } from "../src/payments/create-order.js";
import { createPayout } from "../src/payouts/create-payout.js";
import { decidePayout } from "../src/payouts/decide-payout.js";
import { ADMIN_URL, benchContext, percentile, spawnDevnet, type BenchContext } from "./chain-lib.js";

const PAYOUTS = Number(process.argv[2] ?? 1000);
const DELEGATE_PAYOUTS = Number(process.argv[3] ?? PAYOUTS);
const BLOCK_TIME_MS = Number(process.argv[4] ?? 1000);
const RECIPIENTS = Number(process.argv[5] ?? 100);
/** The hot wallet's USDT at the start, in multiples of what the payouts need (+10 USDT). */
const FLOAT_FACTOR = Number(process.argv[6] ?? 1);
const SOLIDIFY_AFTER = 19;
const USDT = 1_000_000n;
const AMOUNT = 1n; // USDT per payout
const MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const ROOT = resolve(import.meta.dirname, "..");
const run = promisify(execFile);

const cleanups: (() => Promise<void>)[] = [];
async function cleanUp(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await fn().catch(() => undefined);
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Times a worker logged that a payout waits for the float (all workers of the run). */
let floatWaits = 0;

function spawnWorker(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "serve", "--role", "worker"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (c: Buffer) => {
    floatWaits += c.toString().split("float is too small").length - 1;
    output = (output + c.toString()).slice(-20_000);
  });
  child.stderr?.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  });
  return { child, output: () => output };
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms: number,
  state: () => Promise<unknown>,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await state())}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

interface ModeResult {
  mode: "burn" | "delegate";
  hot_wallet_usdt_at_start: string;
  float_waits_logged: number;
  payouts: number;
  completed: number;
  failed: number;
  payouts_per_minute: number;
  approval_to_completed_p50_ms: number;
  approval_to_completed_p99_ms: number;
  approval_to_completed_max_ms: number;
  goal_p99_ms: number;
  trx_burnt_per_payout: string;
  hot_wallet_trx_lost_per_payout: string;
  transactions_per_payout_max: number;
  recipients_usdt_exact: boolean;
  check_ledger_ms: number;
  check_ledger_process_ms: number;
  check_ledger_exit: number;
  check_ledger_output: string;
  approvals_ms: number;
  /** Per tenth in approval order: last approval (s after the first), longest approval -> sent, sent -> completed. */
  tenths: string[];
  /** The three slowest payouts: each event and transaction, in ms after the approval. */
  slowest: string[];
  staked?: { energy_trx: string; bandwidth_trx: string } | undefined;
}

async function runMode(mode: "burn" | "delegate", count: number): Promise<ModeResult> {
  floatWaits = 0;
  const devnet = await spawnDevnet(BLOCK_TIME_MS, SOLIDIFY_AFTER);
  cleanups.push(() => devnet.close());
  const hotKey = randomBytes(32);
  const hot = addressFromPrivateKey(hotKey);
  const env = {
    HOT_WALLET_PRIVATE_KEY: privateKeyToHex(hotKey),
    COLD_WALLET_ADDRESS: addressFromPrivateKey(randomBytes(32)),
    SWEEP_ENABLED: "false",
    SWEEP_MODE: mode,
    CONFIRMATIONS: String(SOLIDIFY_AFTER),
  };
  const bench: BenchContext = await benchContext(devnet, env);
  process.stderr.write(`${mode}: scratch database ${bench.dbName}, devnet ${devnet.url}\n`);
  cleanups.push(() => bench.close());
  const { ctx } = bench;
  const node = createNodeClient({ baseUrl: devnet.url });
  cleanups.push(async () => node.close());
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${bench.dbName}`;

  // The hot wallet: USDT for every payout, TRX for the fees (burn) or the stake (delegate).
  await devnet.post("/devnet/fund", {
    address: hot,
    trx: "100000",
    usdt: String(BigInt(Math.ceil(count * FLOAT_FACTOR)) * AMOUNT + 10n),
  });
  let staked: { energy_trx: string; bandwidth_trx: string } | undefined;
  if (mode === "delegate") {
    // Energy for every transfer at once (~130,285 to a fresh holder, +20 %), and bandwidth for its
    // ~345 bytes, so nothing burns. The yield follows the chain's totals (java-tron: frozen x
    // limit / weight, our own stake counted in the weight).
    const res = await node.getAccountResource(devnet.faucetAddress);
    const stakeFor = (amount: number, limit = 0, weight = 1) =>
      BigInt(Math.ceil(((amount * weight) / Math.max(1, limit - amount)) * 1.1) + 1);
    const energyTrx = stakeFor(count * 130_285 * 1.2, res.TotalEnergyLimit, res.TotalEnergyWeight);
    const bandwidthTrx = stakeFor(count * 400, res.TotalNetLimit, res.TotalNetWeight);
    await devnet.post("/devnet/fund", { address: hot, trx: String(energyTrx + bandwidthTrx + 1000n) });
    await stakeHotWallet(devnet.url, privateKeyToHex(hotKey), { energyTrx, bandwidthTrx });
    staked = { energy_trx: energyTrx.toString(), bandwidth_trx: bandwidthTrx.toString() };
  }
  await devnet.post("/devnet/mine", { blocks: SOLIDIFY_AFTER + 1 });

  const workerEnv = {
    NODE_ENV: "development",
    LOG_LEVEL: "warn",
    DATABASE_URL: dbUrl.toString(),
    DATA_DIR: mkdtempSync(join(tmpdir(), "sg-bench-payouts-")),
    ADMIN_PASSWORD: "bench-admin-password",
    SESSION_SECRET: "bench-session-secret-0123456789abcdef0123456789",
    API_KEY_PEPPER: "bench-api-key-pepper-0123456789abcdef0123456789",
    WALLET_MNEMONIC: MNEMONIC,
    TRON_NETWORK: "devnet",
    TRON_NODE_URL: devnet.url,
    USDT_CONTRACT: devnet.usdtContract,
    HOST: "127.0.0.1",
    ...env,
  };
  const workers = [
    spawnWorker({ ...workerEnv, PORT: String(await freePort()) }),
    spawnWorker({ ...workerEnv, PORT: String(await freePort()) }),
  ];
  const outputs = () => workers.map((w, i) => `--- worker ${i} ---\n${w.output().slice(-3000)}`).join("\n");

  // The workers' scanner places its cursor at the head on its first start: pay only after that.
  await waitFor(
    "the workers' scanner to start",
    async () =>
      (await queryRows<{ n: string }>(ctx.db, sql`SELECT count(*)::text AS n FROM scanner_cursor`))[0]?.n ===
      "1"
        ? true
        : undefined,
    60_000,
    async () => outputs(),
  );
  // The merchant's balance: a real payment, confirmed by the workers.
  const { merchant } = await createMerchant(ctx, { name: `Bench ${mode}`, webhookSecret: "bench-secret" });
  const total = BigInt(count) * AMOUNT;
  const { order } = await createOrder(
    ctx,
    { id: merchant.id },
    {
      externalId: `bench-${mode}`,
      amount: total.toString(),
      currency: "USDT",
      callbackUrl: "https://shop.example.com/cb",
    },
  );
  await devnet.post("/devnet/fund", { address: order.address, usdt: total.toString() });
  await waitFor(
    "the merchant's payment to be confirmed",
    async () => {
      const [row] = await queryRows<{ status: string }>(
        ctx.db,
        sql`SELECT status FROM orders WHERE id = ${order.id}::uuid`,
      );
      return row && row.status !== "pending" && row.status !== "detected" ? true : undefined;
    },
    SOLIDIFY_AFTER * BLOCK_TIME_MS + 120_000,
    async () => outputs(),
  );

  const recipients = Array.from({ length: Math.min(RECIPIENTS, count) }, () =>
    addressFromPrivateKey(randomBytes(32)),
  );
  const trxBefore = BigInt((await node.getAccount(hot))?.balance ?? 0);
  const actor = { kind: "merchant" as const, id: merchant.id, label: merchant.apiKeyPrefix };
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const { payout } = await createPayout(ctx, merchant.id, actor, {
      external_id: `p-${i}`,
      amount: AMOUNT.toString(),
      address: recipients[i % recipients.length] as string,
    });
    ids.push(payout.id);
  }
  const approveStart = Date.now();
  const approver = { kind: "operator" as const, id: "bench-approver", label: "bench approver" };
  for (const id of ids) await decidePayout(ctx, { id, decision: "approve", actor: approver });
  const approvalsMs = Date.now() - approveStart;

  const state = async () =>
    queryRows<{ status: string; n: string }>(
      ctx.db,
      sql`SELECT status, count(*)::text AS n FROM payouts GROUP BY status`,
    );
  await waitFor(
    `${count} payouts to end`,
    async () => {
      const [row] = await queryRows<{ open: string }>(
        ctx.db,
        sql`SELECT count(*)::text AS open FROM payouts WHERE status NOT IN ('completed', 'failed')`,
      );
      return row?.open === "0" ? true : undefined;
    },
    Math.max(600_000, count * 1_000),
    async () => ({ state: await state(), workers: outputs() }),
  );

  const rows = await queryRows<{
    status: string;
    latency: string;
    done: string;
    burnt: string | null;
    txs: string;
  }>(
    ctx.db,
    sql`SELECT p.status, (extract(epoch FROM coalesce(p.completed_at, p.failed_at) - p.approved_at) * 1000)::bigint::text AS latency,
               (extract(epoch FROM coalesce(p.completed_at, p.failed_at)) * 1000)::bigint::text AS done,
               p.trx_burnt_sun::text AS burnt,
               (SELECT count(*) FROM payout_transactions t WHERE t.payout_id = p.id)::text AS txs
        FROM payouts p`,
  );
  const completed = rows.filter((r) => r.status === "completed");
  const latencies = completed.map((r) => Number(r.latency)).sort((a, b) => a - b);
  const lastDone = Math.max(...completed.map((r) => Number(r.done)));
  const burnt = completed.reduce((sum, r) => sum + BigInt(r.burnt ?? "0"), 0n);
  const trxAfter = BigInt((await node.getAccount(hot))?.balance ?? 0);
  const perRecipient = new Map<string, bigint>();
  ids.forEach((_, i) => {
    const to = recipients[i % recipients.length] as string;
    perRecipient.set(to, (perRecipient.get(to) ?? 0n) + AMOUNT * USDT);
  });
  let exact = true;
  for (const [to, expected] of perRecipient) {
    const r = await node.triggerConstantContract({
      owner: to,
      contract: devnet.usdtContract,
      data: encodeBalanceOf(to),
    });
    if (BigInt(`0x${r.constant_result?.[0] ?? "0"}`) !== expected) exact = false;
  }

  // Where the slowest payouts' time went: each event and transaction, in ms after the approval.
  const slowest = await queryRows<{ id: string; latency: string; last_error: string | null; steps: string }>(
    ctx.db,
    sql`SELECT p.id::text AS id,
               (extract(epoch FROM coalesce(p.completed_at, p.failed_at) - p.approved_at) * 1000)::bigint::text AS latency,
               p.last_error,
               (SELECT string_agg(step, ', ' ORDER BY at) FROM (
                  SELECT e.event_type || ' +' || (extract(epoch FROM e.created_at - p.approved_at) * 1000)::bigint AS step,
                         e.created_at AS at
                  FROM payout_events e WHERE e.payout_id = p.id
                  UNION ALL
                  SELECT 'tx#' || t.attempt || ' ' || t.state || ' block ' || coalesce(t.block_number::text, '-') ||
                         ' landed +' || coalesce((extract(epoch FROM t.landed_at - p.approved_at) * 1000)::bigint::text, '-'),
                         t.created_at
                  FROM payout_transactions t WHERE t.payout_id = p.id) s) AS steps
        FROM payouts p WHERE p.approved_at IS NOT NULL
        ORDER BY coalesce(p.completed_at, p.failed_at) - p.approved_at DESC NULLS FIRST LIMIT 3`,
  );

  // The sender's pace beside the approvals': per tenth of the payouts in approval order, when the
  // last was approved, the longest wait from approval to its first signed transaction, and the
  // longest from that to completed (the chain's part).
  const tenths = await queryRows<{ tenth: number; approved_s: string; to_send_s: string; to_done_s: string }>(
    ctx.db,
    sql`SELECT tenth, round(max(approved), 1)::text AS approved_s, round(max(to_send), 1)::text AS to_send_s,
               round(max(to_done), 1)::text AS to_done_s
        FROM (SELECT ntile(10) OVER (ORDER BY p.approved_at) AS tenth,
                     extract(epoch FROM p.approved_at - min(p.approved_at) OVER ()) AS approved,
                     extract(epoch FROM p.sent_at - p.approved_at) AS to_send,
                     extract(epoch FROM p.completed_at - p.sent_at) AS to_done
              FROM payouts p WHERE p.approved_at IS NOT NULL) t
        GROUP BY tenth ORDER BY tenth`,
  );

  // check-ledger with the CLI, as an operator would (the workers still run: PostgreSQL).
  const checkStarted = performance.now();
  const checked = await run(process.execPath, ["--import", "tsx", "src/main.ts", "check-ledger"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...workerEnv },
  }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code?: number; stdout?: string }) => ({ code: e.code ?? 1, out: e.stdout ?? "" }),
  );
  const checkProcessMs = Math.round(performance.now() - checkStarted);
  const checkMs = Number(/checked in (\d+) ms/.exec(checked.out)?.[1] ?? NaN);
  const fmt = (sun: bigint) => (Number(sun) / 1e6).toFixed(4);
  await cleanUp();
  return {
    mode,
    hot_wallet_usdt_at_start: (BigInt(Math.ceil(count * FLOAT_FACTOR)) * AMOUNT + 10n).toString(),
    float_waits_logged: floatWaits,
    payouts: count,
    completed: completed.length,
    failed: rows.length - completed.length,
    payouts_per_minute: Number((completed.length / ((lastDone - approveStart) / 60_000)).toFixed(1)),
    approval_to_completed_p50_ms: Math.round(percentile(latencies, 50)),
    approval_to_completed_p99_ms: Math.round(percentile(latencies, 99)),
    approval_to_completed_max_ms: Math.round(latencies.at(-1) ?? NaN),
    goal_p99_ms: 120_000,
    trx_burnt_per_payout: fmt(burnt / BigInt(Math.max(1, completed.length))),
    hot_wallet_trx_lost_per_payout: fmt((trxBefore - trxAfter) / BigInt(Math.max(1, completed.length))),
    transactions_per_payout_max: Math.max(...rows.map((r) => Number(r.txs))),
    recipients_usdt_exact: exact,
    check_ledger_ms: checkMs,
    check_ledger_process_ms: checkProcessMs,
    check_ledger_exit: checked.code,
    check_ledger_output: checked.out.trim().split("\n").slice(-3).join(" | "),
    approvals_ms: approvalsMs,
    tenths: tenths.map(
      (t) =>
        `${t.tenth}: approved by +${t.approved_s} s, to sent <= ${t.to_send_s} s, sent to completed <= ${t.to_done_s} s`,
    ),
    slowest: slowest.map((r) => `${r.latency} ms: ${r.steps} (last_error: ${r.last_error ?? "none"})`),
    staked,
  };
}

try {
  const results: ModeResult[] = [];
  results.push(await runMode("burn", PAYOUTS));
  if (DELEGATE_PAYOUTS > 0) results.push(await runMode("delegate", DELEGATE_PAYOUTS));
  console.log(
    JSON.stringify(
      {
        block_time_ms: BLOCK_TIME_MS,
        solidify_after: SOLIDIFY_AFTER,
        workers: 2,
        recipients: RECIPIENTS,
        amount_usdt: AMOUNT.toString(),
        results,
        loadavg: loadavg().map((l) => Number(l.toFixed(2))),
      },
      null,
      2,
    ),
  );
} finally {
  await cleanUp();
}
