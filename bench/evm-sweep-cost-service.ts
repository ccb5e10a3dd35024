/**
 * The service's own sweeps for bench/evm-sweep-cost.ts: orders paid on the devnet, scanned to
 * finality, and swept by the real sweeper and outbox (runDueEvmSweeps, runOutbox) in top-up mode
 * and in 7702 mode, on an in-memory PGlite database. What each sweep cost is then read back from
 * that database, as the service recorded it from the receipts (evm_sweep_legs' gas_cost_wei and
 * sweep_gas_cost_wei; each transaction's gas_used in evm_transactions), and checked against the
 * node's own receipts to the wei.
 */
import { sql } from "drizzle-orm";
import { Wallet, parseUnits, type JsonRpcProvider } from "ethers";
import type { EvmDevnet } from "@stablegate/devnet";
import { createScanner } from "../src/chain/scanner.js";
import { loadConfig } from "../src/config.js";
import type { EvmSweepMode } from "../src/config/evm.js";
import { createContext, type Context } from "../src/context.js";
import { openDatabase, type Database } from "../src/db/connection.js";
import { migrate } from "../src/db/migrate.js";
import { queryRows } from "../src/db/query-rows.js";
import { buildApp } from "../src/http/app.js";
import { createLogger } from "../src/logger.js";
import { createMerchant } from "../src/merchants/create-merchant.js";
import { runOutbox } from "../src/outbox/run-outbox.js";
import { signerLookup } from "../src/outbox/signers.js";
import { runDueEvmSweeps } from "../src/sweeps/evm-sweeps.js";
import { fillAddressPools } from "../src/wallet/fill-address-pool.js";
import { FakeClock } from "../test/helpers/clock.js";
import { sendToken } from "../test/helpers/evm-sweeps.js";
import { benchBaseEnv } from "./chain-lib.js";

/** One sweep as the service recorded it. */
export interface RecordedSweep {
  mode: EvmSweepMode;
  /** gas_used of the leg's transactions (the top-up's and the sweep's), from evm_transactions */
  topUpGas: bigint;
  sweepGas: bigint;
  /** wei, from evm_sweep_legs */
  topUpWei: bigint;
  sweepWei: bigint;
  dustWei: bigint;
}

export interface ServiceSweepOptions {
  devnet: EvmDevnet;
  provider: JsonRpcProvider;
  faucet: Wallet;
  /** the service's hot wallet: its own key, so no other sender takes its nonces */
  hot: Wallet;
  cold: string;
  sweeper: string;
  token: { address: string; decimals: number };
  sweepsPerMode: number;
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`check failed: ${what}`);
}

/** Confirmations the bench's chain counts as final: each turn mines one more block than that. */
const FINALITY = 2;

/** A fresh in-memory database for one token's service sweeps, migrated. */
async function scratchDatabase(): Promise<Database> {
  const database = await openDatabase({});
  await migrate(database);
  return database;
}

/**
 * Pays and sweeps `sweepsPerMode` orders of 100 tokens in each mode through the service, each order
 * on a new deposit address (the pool of a new mnemonic: no address was ever funded or delegated),
 * and answers each sweep as the service recorded it.
 */
export async function serviceSweeps(o: ServiceSweepOptions): Promise<RecordedSweep[]> {
  const database = await scratchDatabase();
  const clock = new FakeClock(new Date());
  const log = createLogger({ level: "silent" });
  const mnemonic = Wallet.createRandom().mnemonic?.phrase;
  if (!mnemonic) throw new Error("no mnemonic");
  const contextFor = (mode: EvmSweepMode) =>
    createContext(
      loadConfig({
        ...benchBaseEnv(),
        WALLET_MNEMONIC: mnemonic,
        CHAINS: "ethereum",
        ETHEREUM_NETWORK: "devnet",
        ETHEREUM_RPC_URL: o.devnet.rpcUrl,
        // The token under test is the chain's USDT: one contract per context.
        ETHEREUM_USDT_CONTRACT: o.token.address,
        ETHEREUM_FINALITY: String(FINALITY),
        EVM_HOT_WALLET_PRIVATE_KEY: o.hot.privateKey,
        EVM_COLD_WALLET_ADDRESS: o.cold,
        EVM_SWEEPER_CONTRACT: o.sweeper,
        EVM_SWEEP_MODE: mode,
        CONFIRMATIONS: "1",
        SWEEP_ENABLED: "true",
        SWEEP_MIN_USDT: "1",
        POOL_MIN_FREE: String(2 * o.sweepsPerMode + 2),
        LOG_LEVEL: "silent",
      }),
      { database, clock, log },
    );
  const contexts = { topup: await contextFor("topup"), "7702": await contextFor("7702") };
  const app = await buildApp(contexts.topup);
  try {
    await app.ready();
    const { apiKey } = await createMerchant(contexts.topup, {
      name: "Bench Sweeps",
      webhookSecret: "whsec-bench-sweeps",
    });
    await fillAddressPools(contexts.topup);
    const chain = contexts.topup.chains.get("ethereum");
    if (!chain) throw new Error("ethereum is not enabled");
    const scanner = createScanner(contexts.topup, {
      chain,
      retry: { baseMs: 10, capMs: 100 },
      maxIdleMs: 50,
    });
    await scanner.sync();
    const recorded: RecordedSweep[] = [];
    for (const mode of ["topup", "7702"] as const) {
      const ctx = contexts[mode];
      for (let i = 0; i < o.sweepsPerMode; i++) {
        const res = await app.inject({
          method: "POST",
          url: "/api/v1/payments",
          headers: { "x-api-key": apiKey, "content-type": "application/json" },
          payload: JSON.stringify({
            external_id: `bench-${mode}-${i}-${o.token.address}`,
            amount: "100",
            currency: "USDT",
            chain: "ethereum",
            callback_url: "https://merchant.example.com/hooks",
          }),
        });
        check(res.statusCode === 201, `order created: ${res.statusCode} ${res.body}`);
        const order = res.json() as { id: string; address: string };
        await sendToken(o.faucet, o.token.address, order.address, parseUnits("100", o.token.decimals));
        // Seen in one pass, confirmed at finality in the next (as the scanner's loop would).
        await o.devnet.mine(1);
        await scanner.sync();
        await o.devnet.mine(FINALITY + 1);
        await scanner.sync();
        const [status] = await queryRows<{ status: string }>(
          ctx.db,
          sql`SELECT status FROM orders WHERE id = ${order.id}::uuid`,
        );
        check(
          status?.status === "confirmed",
          `order ${order.id} is ${status?.status ?? "missing"}, not confirmed`,
        );
        recorded.push(await sweepOrder(ctx, clock, o, order.id, mode));
      }
    }
    return recorded;
  } finally {
    await app.close();
    await database.close();
  }
}

async function settlementOf(ctx: Context, orderId: string) {
  const [row] = await queryRows<{ id: string; status: string; round: number; mode: string | null }>(
    ctx.db,
    sql`SELECT id::text AS id, status, round, mode FROM settlements WHERE order_id = ${orderId}::uuid`,
  );
  return row;
}

/** Turns the sweeper and the outbox (a block after each) until the order's sweep is completed. */
async function sweepOrder(
  ctx: Context,
  clock: FakeClock,
  o: ServiceSweepOptions,
  orderId: string,
  mode: EvmSweepMode,
): Promise<RecordedSweep> {
  const signers = signerLookup(ctx, "ethereum");
  const deadline = Date.now() + 60_000;
  for (;;) {
    const s = await settlementOf(ctx, orderId);
    if (s?.status === "completed") break;
    if (Date.now() > deadline)
      throw new Error(`the ${mode} sweep of order ${orderId} did not complete: ${JSON.stringify(s)}`);
    clock.advance(60_000);
    await runDueEvmSweeps(ctx, "ethereum", { owner: "bench-sweeper" });
    await runOutbox(ctx, "ethereum", { signers });
    await o.devnet.mine(FINALITY + 1);
  }
  const s = await settlementOf(ctx, orderId);
  check(s?.mode === mode, `order ${orderId} swept in ${s?.mode ?? "no"} mode, not ${mode}`);
  const [leg] = await queryRows<{ gas: string; sweep: string; dust: string; ref: string }>(
    ctx.db,
    sql`SELECT gas_cost_wei::text AS gas, sweep_gas_cost_wei::text AS sweep, dust_wei::text AS dust,
          settlement_id::text || ':' || round || ':' || currency || ':' || attempt AS ref
        FROM evm_sweep_legs WHERE settlement_id = ${s?.id ?? ""}::uuid AND state = 'swept'`,
  );
  if (!leg) throw new Error(`order ${orderId} has no swept leg`);
  const txs = await queryRows<{ purpose: string; tx_hash: string; gas_used: string; price: string }>(
    ctx.db,
    sql`SELECT purpose, tx_hash, gas_used::text AS gas_used, effective_gas_price::text AS price
        FROM evm_transactions WHERE chain = 'ethereum' AND ref = ${leg.ref} AND state = 'final'`,
  );
  const of = (purpose: string) => txs.find((t) => t.purpose === purpose);
  // What the service recorded is what the node's receipts say, to the wei.
  for (const t of txs) {
    const receipt = await o.provider.getTransactionReceipt(t.tx_hash);
    check(
      receipt !== null && receipt.gasUsed * receipt.gasPrice === BigInt(t.gas_used) * BigInt(t.price),
      `the recorded cost of ${t.tx_hash} is its receipt's`,
    );
  }
  const topUpWei = BigInt(leg.gas);
  const sweepWei = BigInt(leg.sweep);
  check(
    topUpWei ===
      (of("sweep_gas") ? BigInt(of("sweep_gas")?.gas_used ?? 0) * BigInt(of("sweep_gas")?.price ?? 0) : 0n),
    `the leg's top-up cost is its transaction's (${orderId})`,
  );
  check(
    sweepWei === BigInt(of("sweep")?.gas_used ?? -1) * BigInt(of("sweep")?.price ?? 0),
    `the leg's sweep cost is its transaction's (${orderId})`,
  );
  return {
    mode,
    topUpGas: BigInt(of("sweep_gas")?.gas_used ?? 0),
    sweepGas: BigInt(of("sweep")?.gas_used ?? 0),
    topUpWei,
    sweepWei,
    dustWei: BigInt(leg.dust),
  };
}
