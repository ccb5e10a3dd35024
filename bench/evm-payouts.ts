/**
 * EVM payouts under load (issue 40): PAYOUTS approved USDT payouts on `arbitrum` (an Anvil devnet
 * mining a block every BLOCK_TIME_MS), sent by a real worker process (the worker role's payout and
 * outbox loops, bench/evm-payout-worker.ts) that is SIGKILLed once half of them are sending and
 * started again. Prints approval -> inclusion p50 / p99 / max (inclusion as the bench saw the
 * outbox row in a block, polled every 250 ms), the most nonces in flight at once (the node's
 * pending count minus its latest), and exactly-once: the hot wallet's Transfer logs counted on
 * chain, each recipient's balance, the hot wallet's nonce; then the timeline and where each group's
 * time went (printPhases). There is no older EVM sender: the
 * reference is the plain outbox (bench/evm-nonces.ts, same devnet settings), run in the same
 * process before it with REFERENCE native transfers. A scratch PostgreSQL database
 * (BENCH_DATABASE_URL) is dropped on exit.
 *
 *   npx tsx bench/evm-payouts.ts [payouts=1000] [block_time_ms=1000] [recipients=100]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import type { Context } from "../src/context.js";
import { queryRows } from "../src/db/query-rows.js";
import { creditMerchant } from "../src/ledger/post-ledger.js";
import { createMerchant } from "../src/merchants/create-merchant.js";
import { createPayout } from "../src/payouts/create-payout.js";
import { decidePayout } from "../src/payouts/decide-payout.js";
import { percentile } from "./chain-lib.js";
import { cleanUp, evmBench, onExit } from "./evm-lib.js";

const PAYOUTS = Number(process.argv[2] ?? 1000);
const BLOCK_TIME_MS = Number(process.argv[3] ?? 1000);
const RECIPIENTS = Number(process.argv[4] ?? 100);
const WORKER = fileURLToPath(new URL("./evm-payout-worker.ts", import.meta.url));
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

const sleep = (n: number) => new Promise((done) => setTimeout(done, n));
const word = (v: string | bigint) =>
  (typeof v === "string" ? v.toLowerCase().replace(/^0x/, "") : v.toString(16)).padStart(64, "0");

async function main(): Promise<void> {
  const { devnet, ctx, hot, hotKey, databaseUrl } = await evmBench({
    chain: "arbitrum",
    blockTimeMs: BLOCK_TIME_MS,
    finalityDepth: 4,
    native: 10n ** 21n,
    tokens: true,
  });
  const rpc = devnet.rpc.bind(devnet);
  const total = BigInt(PAYOUTS) * 1_000_000n;
  await rpc("eth_sendTransaction", [
    {
      from: devnet.faucetAddress,
      to: devnet.usdtContract,
      data: "0xa9059cbb" + word(hot) + word(total),
      gas: "0x30000",
    },
  ]);
  const { merchant } = await createMerchant(ctx, { name: "Bench Shop", webhookSecret: "whsec-bench" });
  await creditMerchant(ctx.db, {
    merchantId: merchant.id,
    currency: "USDT",
    amount: total,
    kind: "payment_received",
    refType: "bench",
    refId: "seed",
  });
  const recipients = Array.from({ length: RECIPIENTS }, () => "0x" + randomBytes(20).toString("hex"));
  const ids: string[] = [];
  for (let n = 0; n < PAYOUTS; n++) {
    const { payout } = await createPayout(
      ctx,
      merchant.id,
      { kind: "merchant", id: merchant.id, label: "bench" },
      {
        external_id: `bench-${n}`,
        amount: "1",
        address: recipients[n % RECIPIENTS] as string,
        chain: "arbitrum",
      },
    );
    ids.push(payout.id);
  }
  const spawnWorker = (): ChildProcess => {
    const child = spawn(process.execPath, ["--import", "tsx", WORKER], {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        RPC_URL: devnet.rpcUrl,
        USDT_CONTRACT: devnet.usdtContract,
        HOT_KEY: hotKey,
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const spawnedAt = Date.now();
    child.stdout?.once("data", () =>
      timeline.push(
        `+${sec(Date.now() - t0)} worker ${child.pid} up (${sec(Date.now() - spawnedAt)} to start)`,
      ),
    );
    onExit(async () => void child.kill("SIGKILL"));
    return child;
  };
  const t0 = Date.now();
  const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const timeline: string[] = [];
  let worker = spawnWorker();
  const approvedAt = new Map<string, number>();
  for (const id of ids) {
    await decidePayout(ctx, {
      id,
      decision: "approve",
      actor: { kind: "operator", id: "op-2", label: "bench" },
    });
    approvedAt.set(id, Date.now());
  }
  timeline.push(`${PAYOUTS} approved one by one by +${sec(Date.now() - t0)}`);
  const includedAt = new Map<string, number>();
  const claimedBy = new Map<string, { owner: string; at: number }[]>();
  let killedPid: number | undefined;
  let killedAt = 0;
  let maxInFlight = 0;
  let killed = false;
  const deadline = Date.now() + 15 * 60_000;
  while (includedAt.size < PAYOUTS && Date.now() < deadline) {
    const [rows, leased, pending, latest] = await Promise.all([
      queryRows<{ ref: string; state: string }>(
        ctx.db,
        sql`SELECT ref, state FROM evm_transactions WHERE purpose = 'payout' AND state IN ('included', 'final')`,
      ),
      queryRows<{ id: string; owner: string }>(
        ctx.db,
        sql`SELECT id::text AS id, lease_owner AS owner FROM payouts WHERE lease_owner IS NOT NULL`,
      ),
      rpc<string>("eth_getTransactionCount", [hot, "pending"]),
      rpc<string>("eth_getTransactionCount", [hot, "latest"]),
    ]);
    const now = Date.now();
    for (const r of leased) {
      const seen = claimedBy.get(r.id) ?? [];
      if (seen.at(-1)?.owner !== r.owner) claimedBy.set(r.id, [...seen, { owner: r.owner, at: now }]);
    }
    for (const r of rows)
      if (!includedAt.has(r.ref.split(":")[0] as string)) includedAt.set(r.ref.split(":")[0] as string, now);
    maxInFlight = Math.max(maxInFlight, Number(BigInt(pending) - BigInt(latest)));
    if (!killed) {
      const [s] = await queryRows<{ n: number }>(
        ctx.db,
        sql`SELECT count(*)::int AS n FROM payouts WHERE status <> 'approved'`,
      );
      if (Number(s?.n ?? 0) >= PAYOUTS / 2) {
        worker.kill("SIGKILL");
        killed = true;
        killedPid = worker.pid;
        killedAt = Date.now();
        worker = spawnWorker();
        timeline.push(
          `+${sec(killedAt - t0)} worker ${killedPid} SIGKILLed with ${s?.n} payouts sending or done`,
        );
      }
    }
    await sleep(250);
  }
  const latencies = ids
    .flatMap((id) => {
      const a = approvedAt.get(id);
      const i = includedAt.get(id);
      return a !== undefined && i !== undefined ? [(i - a) / 1000] : [];
    })
    .sort((x, y) => x - y);
  await sleep(BLOCK_TIME_MS * 8);
  const logs = await rpc<unknown[]>("eth_getLogs", [
    {
      fromBlock: "0x0",
      toBlock: "latest",
      address: devnet.usdtContract,
      topics: [TRANSFER_TOPIC, "0x" + word(hot)],
    },
  ]);
  const balances = await Promise.all(
    recipients.map(async (r) =>
      BigInt(
        await rpc<string>("eth_call", [{ to: devnet.usdtContract, data: "0x70a08231" + word(r) }, "latest"]),
      ),
    ),
  );
  const expected = (i: number) =>
    BigInt(Math.floor(PAYOUTS / RECIPIENTS) + (i < PAYOUTS % RECIPIENTS ? 1 : 0)) * 1_000_000n;
  const exact = balances.every((b, i) => b === expected(i));
  const nonce = Number(BigInt(await rpc<string>("eth_getTransactionCount", [hot, "latest"])));
  const [done] = await queryRows<{ n: number }>(
    ctx.db,
    sql`SELECT count(*)::int AS n FROM payouts WHERE status = 'completed'`,
  );
  console.log(
    `EVM payouts: ${PAYOUTS} approved, ${BLOCK_TIME_MS} ms blocks, ${RECIPIENTS} recipients, worker SIGKILLed mid-run: ${killed}`,
  );
  console.log(
    `  approval -> inclusion: p50 ${percentile(latencies, 50).toFixed(1)} s, p99 ${percentile(latencies, 99).toFixed(1)} s, max ${(latencies.at(-1) ?? NaN).toFixed(1)} s (${latencies.length} included; goal p99 <= 30 s)`,
  );
  console.log(`  most nonces in flight at once: ${maxInFlight}`);
  console.log(`  timeline: ${timeline.join("; ")}`);
  await printPhases(ctx, rpc, { ids, approvedAt, includedAt, claimedBy, killedAt, killedPid });
  console.log(
    `  exactly once: ${logs.length} Transfer logs from the hot wallet, hot wallet nonce ${nonce}, every recipient exact: ${exact}, completed ${done?.n}`,
  );
}

interface Seen {
  ids: string[];
  approvedAt: Map<string, number>;
  includedAt: Map<string, number>;
  claimedBy: Map<string, { owner: string; at: number }[]>;
  killedAt: number;
  killedPid: number | undefined;
}

/**
 * Where each payout's time went, for three groups: those included before the SIGKILL, those the
 * killed worker held (claimed or stored by it, not included before the kill), and the rest. A
 * claim is the bench's first sighting of a lease (every 250 ms); "in block" is the block's
 * timestamp (1 s resolution); "seen included" is when the bench saw the outbox record it.
 */
async function printPhases(
  ctx: Context,
  rpc: <T>(method: string, params: unknown[]) => Promise<T>,
  seen: Seen,
): Promise<void> {
  const ms = (column: string) => sql.raw(`(extract(epoch FROM ${column}) * 1000)::bigint::text AS ${column}`);
  const payoutRows = await queryRows<Record<string, string | null>>(
    ctx.db,
    sql`SELECT id::text AS id, ${ms("sent_at")}, ${ms("completed_at")} FROM payouts`,
  );
  const txRows = await queryRows<Record<string, string | null>>(
    ctx.db,
    sql`SELECT ref, state, generation, block_number::text AS block_number, ${ms("created_at")},
          ${ms("first_broadcast_at")}, ${ms("broadcast_at")} FROM evm_transactions WHERE purpose = 'payout'`,
  );
  const blocks = new Map<string, number>();
  for (const b of new Set(txRows.flatMap((t) => (t.block_number ? [t.block_number] : [])))) {
    const block = await rpc<{ timestamp: string }>("eth_getBlockByNumber", [
      "0x" + BigInt(b).toString(16),
      false,
    ]);
    blocks.set(b, Number(BigInt(block.timestamp)) * 1000);
  }
  const n = (v: string | null | undefined) => (v === null || v === undefined ? undefined : Number(v));
  const byPayout = new Map<string, Record<string, string | null>[]>();
  for (const t of txRows) {
    const id = String(t.ref).split(":")[0] as string;
    byPayout.set(id, [...(byPayout.get(id) ?? []), t]);
  }
  const payout = new Map(payoutRows.map((p) => [String(p.id), p]));
  type Phases = Record<string, number | undefined>;
  const phasesOf = (id: string): Phases => {
    const versions = byPayout.get(id) ?? [];
    const landed = versions.find((v) => v.state === "included" || v.state === "final");
    const firstBroadcast = Math.min(...versions.flatMap((v) => n(v.first_broadcast_at) ?? []));
    const p = payout.get(id);
    const claims = seen.claimedBy.get(id) ?? [];
    const at = {
      approved: seen.approvedAt.get(id),
      claimed: claims[0]?.at,
      stored: n(p?.sent_at),
      broadcast: Number.isFinite(firstBroadcast) ? firstBroadcast : undefined,
      lastSend: n(landed?.broadcast_at),
      inBlock: landed?.block_number ? blocks.get(landed.block_number) : undefined,
      seenIncluded: seen.includedAt.get(id),
      completed: n(p?.completed_at),
    };
    const d = (a: number | undefined, b: number | undefined) =>
      a === undefined || b === undefined ? undefined : (b - a) / 1000;
    return {
      "approved->claimed": d(at.approved, at.claimed),
      "claimed->stored": d(at.claimed ?? at.approved, at.stored),
      "stored->1st broadcast": d(at.stored, at.broadcast),
      "1st->last broadcast": d(at.broadcast, at.lastSend),
      "last broadcast->in block": d(at.lastSend, at.inBlock),
      "in block->seen included": d(at.inBlock, at.seenIncluded),
      "included->completed": d(at.seenIncluded, at.completed),
      "approval->included": d(at.approved, at.seenIncluded),
    };
  };
  const killedOwner = seen.killedPid === undefined ? undefined : `-${seen.killedPid}`;
  const groups: [string, string[]][] = [
    ["included before the kill", []],
    ["held by the killed worker", []],
    ["the rest", []],
  ];
  for (const id of seen.ids) {
    const included = seen.includedAt.get(id);
    const stored = n(payout.get(id)?.sent_at);
    const held =
      (seen.claimedBy.get(id) ?? []).some((c) => killedOwner && c.owner.endsWith(killedOwner)) ||
      (stored !== undefined && stored < seen.killedAt);
    if (seen.killedAt > 0 && included !== undefined && included < seen.killedAt) groups[0]?.[1].push(id);
    else if (seen.killedAt > 0 && held) groups[1]?.[1].push(id);
    else groups[2]?.[1].push(id);
  }
  console.log("  where the time went (s, p50 / max per group):");
  for (const [name, members] of groups) {
    if (members.length === 0) continue;
    const all = members.map(phasesOf);
    const cells = Object.keys(all[0] ?? {}).map((phase) => {
      const values = all.flatMap((a) => a[phase] ?? []).sort((x, y) => x - y);
      return values.length === 0
        ? `${phase} -`
        : `${phase} ${percentile(values, 50).toFixed(1)} / ${(values.at(-1) as number).toFixed(1)}`;
    });
    console.log(`    ${name} (${members.length}): ${cells.join(", ")}`);
  }
}

main()
  .then(cleanUp, async (error: unknown) => {
    console.error(error);
    await cleanUp();
    process.exitCode = 1;
  })
  .then(() => process.exit());
