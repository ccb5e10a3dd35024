/**
 * The dust shown after a mode switch (docs/evm-sweeps.md "What it cost"): an order's address is
 * swept in top-up mode, which leaves native dust on it; the service is then restarted with
 * EVM_SWEEP_MODE=7702 (a second context on the same database, as an operator's restart is), the
 * address is paid again and swept by the hot wallet's type-4 transaction, which sends it no gas.
 * The dust the admin wallet shows must be the address's balance on the chain, read independently.
 * Anvil over HTTP, PGlite.
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { JsonRpcProvider, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import { createContext, type Context } from "../../src/context.js";
import { queryRows } from "../../src/db/query-rows.js";
import { createLogger } from "../../src/logger.js";
import { runOutbox } from "../../src/outbox/run-outbox.js";
import { signerLookup } from "../../src/outbox/signers.js";
import { runDueEvmSweeps } from "../../src/sweeps/evm-sweeps.js";
import { getSweepCosts } from "../../src/sweeps/get-sweep-costs.js";
import { fillAddressPools } from "../../src/wallet/fill-address-pool.js";
import { FAST_RETRY } from "../chain/helpers.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { testConfig } from "../helpers/config.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { automineProvider, deploySweeper, tokenBalance } from "../helpers/evm-sweeps.js";
import { poll } from "../helpers/poll.js";
import { addMerchant, orderBody, postOrder, type TestMerchant } from "../payments/helpers.js";

const eth = evmDevnetForFile({ chainId: 31337 });
const hot = new Wallet("0x" + randomBytes(32).toString("hex"));
const cold = Wallet.createRandom().address.toLowerCase();
let env: Record<string, string>;
let sweeper: string;
let t: TestApp;
let shop: TestMerchant;
let scanner: Scanner;
let delegating: Context | undefined;

beforeAll(async () => {
  const d = eth();
  const deployer = new Wallet(d.faucetPrivateKey, await automineProvider(d));
  sweeper = (await deploySweeper(deployer, cold)).toLowerCase();
  await d.rpc("evm_setAutomine", [false]);
  await d.rpc("anvil_setBalance", [hot.address, "0x" + (10n ** 18n).toString(16)]);
  env = {
    CHAINS: "ethereum",
    CONFIRMATIONS: "1",
    POOL_MIN_FREE: "5",
    SWEEP_ENABLED: "true",
    SWEEP_MIN_USDT: "1",
    ...evmChainEnv("ethereum", d),
    EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
    EVM_COLD_WALLET_ADDRESS: cold,
    EVM_SWEEPER_CONTRACT: sweeper,
  };
  t = await createTestApp({ env: { ...env, EVM_SWEEP_MODE: "topup" } });
  shop = await addMerchant(t.ctx, "Switching Shop");
  await fillAddressPools(t.ctx);
  const chain = t.ctx.chains.get("ethereum");
  if (!chain) throw new Error("ethereum is not enabled");
  scanner = createScanner(t.ctx, { chain, retry: FAST_RETRY, maxIdleMs: 50 });
  await scanner.sync();
}, 60_000);
afterAll(async () => {
  await delegating?.chains.close();
  await t?.close();
});

const provider = () => new JsonRpcProvider(eth().rpcUrl, eth().chainId, { staticNetwork: true });

async function pay(address: string, units: bigint) {
  await sendToken(eth(), eth().usdcContract, address, units);
  await eth().mine(1);
  await scanner.sync();
  await eth().mine(eth().finalityDepth + 1);
  await scanner.sync();
}

async function settlement(orderId: string) {
  const [row] = await queryRows<{ status: string; round: number; mode: string | null }>(
    t.ctx.db,
    sql`SELECT status, round, mode FROM settlements WHERE order_id = ${orderId}::uuid`,
  );
  return row;
}

/** The worker's sweeper and outbox turns under `ctx`'s configuration until `round` is swept. */
async function sweptRound(ctx: Context, orderId: string, round: number) {
  await poll(`round ${round} swept`, () => settlement(orderId), {
    until: (s) => s?.status === "completed" && s.round === round,
    intervalMs: 0,
    between: async () => {
      t.clock.advance(60_000);
      await runDueEvmSweeps(ctx, "ethereum", { owner: "test-sweeper" });
      await runOutbox(ctx, "ethereum", { signers: signerLookup(ctx, "ethereum") });
      await eth().mine(1);
    },
    describe: () =>
      queryRows(
        t.ctx.db,
        sql`SELECT round, mode, state, dust_wei::text AS dust FROM evm_sweep_legs ORDER BY round`,
      ),
  });
}

const shownDust = async () =>
  BigInt((await getSweepCosts(t.ctx)).evm.find((c) => c.chain === "ethereum")?.dust_wei ?? "-1");

describe("EVM sweep dust across a switch from top-up to 7702 mode", () => {
  it("shows the dust a top-up sweep left on an address that a 7702 sweep later swept again", async () => {
    const p = provider();
    const res = await postOrder(
      t,
      shop.apiKey,
      orderBody({ chain: "ethereum", currency: "USDC", amount: "6" }),
    );
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json() as { id: string; address: string };
    const address = order.address.toLowerCase();

    await pay(address, 6_000_000n);
    await sweptRound(t.ctx, order.id, 1);
    expect(await settlement(order.id)).toMatchObject({ mode: "topup" });
    const leftByTopup = await p.getBalance(address);
    expect(leftByTopup).toBeGreaterThan(0n);
    expect(await shownDust()).toBe(leftByTopup);

    // Restarted with EVM_SWEEP_MODE=7702: the next round sends the address no gas and spends none of its ETH.
    delegating = await createContext(testConfig({ ...env, EVM_SWEEP_MODE: "7702" }), {
      database: t.testDb.database,
      clock: t.clock,
      log: createLogger({ level: "silent" }),
    });
    await pay(address, 2_000_000n);
    await sweptRound(delegating, order.id, 2);
    expect(await settlement(order.id)).toMatchObject({ mode: "7702" });
    expect(await tokenBalance(p, eth().usdcContract, cold)).toBe(8_000_000n);

    const onChain = await p.getBalance(address);
    expect(onChain).toBe(leftByTopup);
    expect(await shownDust()).toBe(onChain);
    const legs = await queryRows<{ round: number; mode: string; dust: string }>(
      t.ctx.db,
      sql`SELECT round, mode, dust_wei::text AS dust FROM evm_sweep_legs ORDER BY round`,
    );
    expect(legs).toEqual([
      { round: 1, mode: "topup", dust: leftByTopup.toString() },
      { round: 2, mode: "7702", dust: onChain.toString() },
    ]);
  }, 90_000);
});
