/**
 * Sweep cost: orders paid and swept on the devnet in burn mode, then in delegate mode, in one run.
 * For each mode, half the payments go to fresh deposit addresses; once those are swept, the chain's
 * clock moves a day on (an address comes back from the pool after quarantine, with its free daily
 * bandwidth restored) and the same addresses are paid again: the reused half. Everything runs as in
 * production: the scanner leader detects and confirms, two sweeper loops sweep, and the figures come
 * from the cost ledger, which reads every transaction's info (fund, activate, delegate, sweep,
 * undelegate: the hot wallet's own transactions included).
 *
 * Prints, per mode: the average TRX burnt per sweep, fresh and reused address, where it was burnt (by
 * transaction kind), and the time from the outcome (the settlement queued in the confirming
 * transaction) to the sweep solidified, p50/p99/max; then one line per sweep-cost goal, met or not
 * (sweep-cost-report.ts). The cold wallet already holds USDT. In delegate mode the hot wallet stakes
 * for energy and bandwidth, each sized to the run, so its own transactions burn nothing.
 *
 *   npm run bench:sweep-cost -- [orders=100] [block_time_ms=1000] [solidify_after=19]
 *   (runs bench/evm-sweep-cost.ts first: the EVM's gas per sweep, top-up against EIP-7702)
 *   (PostgreSQL: BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test)
 */
import { generateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import { sql } from "drizzle-orm";
import { loadavg } from "node:os";
import { startDevnet } from "@stablegate/devnet";
import { startScannerLeader } from "../src/chain/scanner-leader.js";
import { stakeHotWallet } from "../src/chain/embedded-devnet.js";
import type { Context } from "../src/context.js";
import { queryRows } from "../src/db/query-rows.js";
import { createMerchant } from "../src/merchants/create-merchant.js";
import { formatSun } from "../src/money.js";
import { createOrder } from "../src/payments/create-order.js";
import { runDueSweeps } from "../src/sweeps/run-sweeps.js";
import { encodeTransfer } from "@stablegate/tron/abi";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import { createNodeClient } from "@stablegate/tron/node-client";
import { randomPrivateKey, privateKeyToHex, signTransaction } from "@stablegate/tron/sign";
import { buildTriggerSmartContract } from "@stablegate/tron/transaction";
import { fillAddressPool } from "../src/wallet/fill-address-pool.js";
import { benchContext, type BenchDevnet } from "./chain-lib.js";
import { goalLines, MAINNET, MAINNET_USDT_TRANSFER_SUN, readModeReport } from "./sweep-cost-report.js";

const ORDERS = Number(process.argv[2] ?? 100);
const BLOCK_TIME_MS = Number(process.argv[3] ?? 1000);
const SOLIDIFY_AFTER = Number(process.argv[4] ?? 19);
const FRESH = Math.ceil(ORDERS / 2);
const DAY_MS = 86_400_000;

const devnet = await startDevnet({
  port: 0,
  blockTimeMs: BLOCK_TIME_MS,
  solidifyAfter: SOLIDIFY_AFTER,
  quiet: true,
});
const node = createNodeClient({ baseUrl: devnet.url });
const post = async (path: string, body: unknown) => {
  const res = await fetch(devnet.url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
};
const benchDevnet = { url: devnet.url, usdtContract: devnet.usdtContract } as BenchDevnet;
const cold = addressFromPrivateKey(privateKeyToHex(randomPrivateKey()));
await post("/devnet/fund", { address: cold, usdt: "1", solidify: true }); // the cold wallet holds USDT

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pay(addresses: string[], micro: bigint): Promise<void> {
  for (const to of addresses) {
    const head = await node.getNowBlock();
    const raw = head.block_header.raw_data;
    const tx = buildTriggerSmartContract({
      owner: devnet.faucetAddress,
      contract: devnet.usdtContract,
      data: encodeTransfer(to, micro),
      feeLimit: 100_000_000,
      refBlock: { number: raw.number ?? 0, hash: head.blockID, timestamp: raw.timestamp },
      nowMs: raw.timestamp,
    });
    await node.broadcastTransaction(signTransaction(tx, devnet.faucetKey));
  }
}

async function trxOf(address: string): Promise<bigint> {
  return BigInt((await node.getAccount(address))?.balance ?? 0);
}

async function ledgerTotal(ctx: Context): Promise<bigint> {
  const [row] = await queryRows<{ sun: string }>(
    ctx.db,
    sql`SELECT COALESCE(sum(trx_burnt), 0)::text AS sun FROM sweep_costs`,
  );
  return BigInt(row?.sun ?? 0);
}

async function costCount(ctx: Context): Promise<number> {
  const [row] = await queryRows<{ n: number }>(ctx.db, sql`SELECT count(*)::int AS n FROM sweep_costs`);
  return row?.n ?? 0;
}

async function waitForCosts(ctx: Context, n: number): Promise<void> {
  const deadline = Date.now() + 20 * 60_000;
  while ((await costCount(ctx)) < n) {
    if (Date.now() > deadline) throw new Error(`only ${await costCount(ctx)} of ${n} sweeps finished`);
    await sleep(500);
  }
}

async function runMode(mode: "burn" | "delegate") {
  const hotKey = privateKeyToHex(randomPrivateKey());
  const hot = addressFromPrivateKey(hotKey);
  await post("/devnet/fund", { address: hot, trx: "100000", solidify: true });
  let hotWallet = {};
  if (mode === "delegate") {
    // Enough energy for every sweep of a phase at once (~71k each with the margin; java-tron hands
    // used energy back to the owner on undelegation, recovering over 24 h), so none falls back; and
    // enough bandwidth for the hot wallet's own transactions of a phase (activate, delegate and
    // undelegate: ~830 bytes a fresh sweep, ~560 a reused one; 1,000 with a margin), so they burn
    // nothing. The stake's yield follows the chain's totals (java-tron: frozen x limit / weight).
    const res = await node.getAccountResource(devnet.faucetAddress);
    const perTrx = (limit?: number, weight?: number) => (limit ?? 0) / Math.max(1, weight ?? 1);
    const energyPerTrx = perTrx(res.TotalEnergyLimit, res.TotalEnergyWeight);
    const bytesPerTrx = perTrx(res.TotalNetLimit, res.TotalNetWeight);
    const energyTrx = BigInt(Math.ceil((FRESH * 80_000) / energyPerTrx));
    const bandwidthTrx = BigInt(Math.ceil((FRESH * 1_000) / bytesPerTrx));
    await stakeHotWallet(devnet.url, hotKey, { energyTrx, bandwidthTrx });
    hotWallet = {
      staked_energy_trx: Number(energyTrx),
      staked_bandwidth_trx: Number(bandwidthTrx),
      staked_bandwidth_bytes_per_day: Math.floor(Number(bandwidthTrx) * bytesPerTrx),
    };
  }
  const bench = await benchContext(benchDevnet, {
    HOT_WALLET_PRIVATE_KEY: hotKey,
    COLD_WALLET_ADDRESS: cold,
    SWEEP_ENABLED: "true",
    SWEEP_MODE: mode,
    CONFIRMATIONS: String(SOLIDIFY_AFTER),
    POOL_MIN_FREE: String(FRESH + 10),
    // A seed per mode: each mode's deposit addresses are new to the chain.
    WALLET_MNEMONIC: generateMnemonic(wordlist),
  });
  const { ctx } = bench;
  try {
    await fillAddressPool(ctx);
    const { merchant } = await createMerchant(ctx, { name: `Bench ${mode}`, webhookSecret: "bench-webhook" });
    const addresses: string[] = [];
    for (let i = 0; i < FRESH; i++) {
      const { order } = await createOrder(
        ctx,
        { id: merchant.id },
        {
          externalId: `${mode}-${i}`,
          amount: "10",
          currency: "USDT",
          callbackUrl: "https://shop.example.com/h",
        },
      );
      addresses.push(order.address);
    }
    const leader = startScannerLeader(ctx);
    let sweeping = true;
    const sweeper = async (owner: string) => {
      while (sweeping) {
        const { claimed } = await runDueSweeps(ctx, { owner, limit: 5 }).catch(() => ({ claimed: 0 }));
        if (claimed < 5) await sleep(300);
      }
    };
    const sweepers = [sweeper(`${mode}-a`), sweeper(`${mode}-b`)];
    const hotBefore = await trxOf(hot);
    const started = Date.now();
    await pay(addresses, 10_000_000n);
    await waitForCosts(ctx, FRESH);
    // A day later the addresses are back in use: paid again, swept again (reused, already active).
    devnet.advanceClock(DAY_MS);
    await pay(addresses.slice(0, ORDERS - FRESH), 10_000_000n);
    await waitForCosts(ctx, ORDERS);
    const wallS = Math.round((Date.now() - started) / 1000);
    sweeping = false;
    await Promise.all(sweepers);
    await leader.stop();
    const report = await readModeReport(ctx, mode);
    // The ledger against the chain's balances: what left the hot wallet and is not on a deposit
    // address was burnt (nothing else moves TRX here), so the two must agree to the sun.
    let onAddresses = 0n;
    for (const a of addresses) onAddresses += await trxOf(a);
    const chainBurnt = hotBefore - (await trxOf(hot)) - onAddresses;
    const ledgerBurnt = await ledgerTotal(ctx);
    const ledger_vs_chain = {
      ledger_trx_burnt: formatSun(ledgerBurnt),
      chain_trx_burnt: formatSun(chainBurnt),
      equal: ledgerBurnt === chainBurnt,
    };
    return { ...report, ledger_vs_chain, ...hotWallet, wall_s: wallS };
  } finally {
    await bench.close();
  }
}

try {
  const burn = await runMode("burn");
  const delegate = await runMode("delegate");
  const params = await node.getChainParameters();
  console.log(
    JSON.stringify(
      {
        bench: "sweep-cost",
        database: "postgresql",
        orders_per_mode: ORDERS,
        block_time_ms: BLOCK_TIME_MS,
        solidify_after_blocks: SOLIDIFY_AFTER,
        load_average: loadavg().map((l) => Number(l.toFixed(2))),
        // The devnet's prices against mainnet's (test/fixtures/tron-real/ transaction infos).
        devnet_energy_price_sun: params.getEnergyFee,
        devnet_bandwidth_price_sun: params.getTransactionFee,
        devnet_usdt_transfer_energy_to_holder: burn.avg_energy_used_reused,
        mainnet: { ...MAINNET, usdt_transfer_trx: formatSun(MAINNET_USDT_TRANSFER_SUN) },
        burn,
        delegate,
      },
      (_key, value: unknown) => (typeof value === "bigint" ? Number(value) : value),
      2,
    ),
  );
  for (const goal of goalLines(burn, delegate)) console.log(goal);
  for (const r of [burn, delegate]) {
    const c = r.ledger_vs_chain;
    console.log(
      `CHECK ${r.mode} mode, ledger vs chain balances: ${c.equal ? "equal" : "DIFFERENT"} ` +
        `(ledger ${c.ledger_trx_burnt} TRX, chain ${c.chain_trx_burnt} TRX)`,
    );
  }
} finally {
  await node.close();
  await devnet.close();
}
