/**
 * Static EVM deposit addresses are swept by their deposits on each chain (DESIGN.md 15 and 16,
 * docs/evm-sweeps.md "Static addresses"), on two Anvil devnets over HTTP: ethereum (31337, 6-decimal
 * USDT) and bsc (56, the 18-decimal USDT). One customer's address is paid on both chains; each chain's
 * confirmed deposits queue a sweep on that chain, the service's sweeper and outbox move exactly those
 * deposits to the cold wallet (read with ethers), and mark them; a re-run sweeps nothing twice, and a
 * later deposit is swept alone in the next round.
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { formatEther, JsonRpcProvider, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EvmDevnet } from "@stablegate/devnet";
import { createScanner, type Scanner } from "../../src/chain/scanner.js";
import type { ChainId } from "../../src/chains/chain-types.js";
import { queryRows } from "../../src/db/query-rows.js";
import { runOutbox } from "../../src/outbox/run-outbox.js";
import { signerLookup } from "../../src/outbox/signers.js";
import { runDueEvmSweeps } from "../../src/sweeps/evm-sweeps.js";
import { FAST_RETRY } from "../chain/helpers.js";
import { adminCookie } from "../helpers/admin.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmChainEnv, evmDevnetForFile, sendToken } from "../helpers/evm-devnet.js";
import { tokenBalance } from "../helpers/evm-sweeps.js";
import { poll } from "../helpers/poll.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";

const eth = evmDevnetForFile({ chainId: 31337 });
const bsc = evmDevnetForFile({ chainId: 56 });
const hot = new Wallet("0x" + randomBytes(32).toString("hex"));
const cold = Wallet.createRandom().address.toLowerCase();
let t: TestApp;
let shop: TestMerchant;
const scanners = new Map<ChainId, Scanner>();
const devnets = (): Record<string, EvmDevnet> => ({ ethereum: eth(), bsc: bsc() });
const devnet = (chain: ChainId) => devnets()[chain] as EvmDevnet;
const provider = (d: EvmDevnet) => new JsonRpcProvider(d.rpcUrl, d.chainId, { staticNetwork: true });

beforeAll(async () => {
  t = await createTestApp({
    env: {
      CHAINS: "ethereum,bsc",
      CONFIRMATIONS: "1",
      SWEEP_ENABLED: "true",
      SWEEP_MIN_USDT: "1",
      ...evmChainEnv("ethereum", eth()),
      ...evmChainEnv("bsc", bsc(), bsc().usdt18Contract),
      EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      EVM_COLD_WALLET_ADDRESS: cold,
    },
  });
  shop = await addMerchant(t.ctx, "Static EVM Sweeps");
  for (const chain of t.ctx.chains.list) {
    const scanner = createScanner(t.ctx, { chain, retry: FAST_RETRY, maxIdleMs: 50 });
    scanners.set(chain.id, scanner);
    await scanner.sync();
  }
  for (const d of [eth(), bsc()])
    await d.rpc("anvil_setBalance", [hot.address, "0x" + (10n ** 18n).toString(16)]);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** Pays `units` of `token` to `to` on `chain` and scans the chain until the deposit is final. */
async function payFinal(chain: ChainId, token: string, to: string, units: bigint) {
  const d = devnet(chain);
  await sendToken(d, token, to, units);
  await d.mine(1);
  await scanners.get(chain)?.sync();
  await d.mine(d.finalityDepth + 1);
  await scanners.get(chain)?.sync();
}

/** One turn of the worker's sweeper and outbox loops for `chain`, then a block. */
async function turn(chain: ChainId) {
  t.clock.advance(60_000);
  await runDueEvmSweeps(t.ctx, chain, { owner: "test-sweeper" });
  await runOutbox(t.ctx, chain, { signers: signerLookup(t.ctx, chain) });
  await devnet(chain).mine(1);
}

async function settlements(address: string) {
  return queryRows<{ id: string; chain: string; status: string; round: number; amount: string | null }>(
    t.ctx.db,
    sql`SELECT id::text AS id, chain, status, round, amount::text AS amount FROM settlements
        WHERE address = ${address} AND order_id IS NULL ORDER BY chain`,
  );
}

async function deposits(depositAddressId: string) {
  return queryRows<{
    chain: string;
    amount: string;
    status: string;
    settlement_id: string | null;
    sweep_round: number | null;
  }>(
    t.ctx.db,
    sql`SELECT chain, amount::text AS amount, status, settlement_id::text AS settlement_id, sweep_round
        FROM deposits WHERE deposit_address_id = ${depositAddressId}::uuid ORDER BY chain, block_number`,
  );
}

async function sweepsSent(address: string, chain: ChainId) {
  return queryRows<{ purpose: string; state: string; tx_hash: string; ref: string }>(
    t.ctx.db,
    sql`SELECT purpose, state, tx_hash, ref FROM evm_transactions
        WHERE chain = ${chain} AND (to_address = ${address} OR sender = ${address}) ORDER BY id`,
  );
}

async function sweepUntilCompleted(address: string, chain: ChainId, round: number) {
  await poll(
    `the ${chain} sweep round ${round} to complete`,
    async () => (await settlements(address)).find((s) => s.chain === chain),
    {
      until: (s) => s?.status === "completed" && s.round === round,
      between: () => turn(chain),
      describe: async () => ({
        settlements: await settlements(address),
        txs: await sweepsSent(address, chain),
      }),
    },
  );
}

describe("static EVM deposit addresses are swept on each chain", () => {
  it("sweeps one address's deposits on ethereum and bsc each on its own chain, exactly, once", async () => {
    const res = await t.app.inject({
      method: "POST",
      url: "/api/v1/deposit-addresses",
      headers: { "x-api-key": shop.apiKey, "content-type": "application/json" },
      payload: JSON.stringify({
        customer_ref: "player-1",
        callback_url: "http://127.0.0.1:9/deposits",
        chain: "ethereum",
        currency: "USDT",
      }),
    });
    expect(res.statusCode, res.body).toBe(201);
    const { id, address: shown } = res.json() as { id: string; address: string };
    const address = shown.toLowerCase();

    const bscUnits = 5_500_000n * 10n ** 12n; // 5.5 USDT of 18 decimals
    await payFinal("ethereum", eth().usdtContract, shown, 7_250_000n);
    await payFinal("bsc", bsc().usdt18Contract, shown, bscUnits);

    // Both chains' deposits are confirmed and each queued a sweep on its own chain.
    expect((await deposits(id)).map((d) => [d.chain, d.amount, d.status])).toEqual([
      ["bsc", "5500000", "confirmed"],
      ["ethereum", "7250000", "confirmed"],
    ]);
    expect((await settlements(address)).map((s) => [s.chain, s.status])).toEqual([
      ["bsc", "waiting"],
      ["ethereum", "waiting"],
    ]);

    await sweepUntilCompleted(address, "ethereum", 1);
    await sweepUntilCompleted(address, "bsc", 1);

    const pe = provider(eth());
    const pb = provider(bsc());
    expect(await tokenBalance(pe, eth().usdtContract, cold)).toBe(7_250_000n);
    expect(await tokenBalance(pe, eth().usdtContract, address)).toBe(0n);
    expect(await tokenBalance(pb, bsc().usdt18Contract, cold)).toBe(bscUnits);
    expect(await tokenBalance(pb, bsc().usdt18Contract, address)).toBe(0n);

    // Each chain's deposit is marked by that chain's settlement, round 1 (rounds count from 1).
    const byChain = Object.fromEntries((await settlements(address)).map((s) => [s.chain, s]));
    expect((await deposits(id)).map((d) => [d.chain, d.settlement_id, d.sweep_round])).toEqual([
      ["bsc", byChain.bsc?.id, 1],
      ["ethereum", byChain.ethereum?.id, 1],
    ]);
    expect([byChain.bsc?.amount, byChain.ethereum?.amount]).toEqual(["5500000", "7250000"]);

    // A re-run sends nothing more on either chain.
    const sent = {
      ethereum: (await sweepsSent(address, "ethereum")).length,
      bsc: (await sweepsSent(address, "bsc")).length,
    };
    expect(sent.ethereum).toBeGreaterThan(0);
    for (let i = 0; i < 2; i++) {
      await turn("ethereum");
      await turn("bsc");
    }
    expect((await sweepsSent(address, "ethereum")).length).toBe(sent.ethereum);
    expect((await sweepsSent(address, "bsc")).length).toBe(sent.bsc);

    // A later deposit on ethereum is swept alone, in round 2; bsc's settlement is untouched.
    await payFinal("ethereum", eth().usdtContract, shown, 2_000_000n);
    await sweepUntilCompleted(address, "ethereum", 2);
    expect(await tokenBalance(pe, eth().usdtContract, cold)).toBe(9_250_000n);
    expect(await tokenBalance(pb, bsc().usdt18Contract, cold)).toBe(bscUnits);
    const after = await settlements(address);
    expect(after.map((s) => [s.chain, s.round, s.amount])).toEqual([
      ["bsc", 1, "5500000"],
      ["ethereum", 2, "2000000"],
    ]);
    expect((await deposits(id)).filter((d) => d.settlement_id === null)).toEqual([]);
  }, 120_000);

  it("reports each EVM chain's sweep costs on the admin wallet, exactly as the receipts say, dust counted, per window", async () => {
    const [settled] = await queryRows<{ address: string }>(
      t.ctx.db,
      sql`SELECT address FROM settlements WHERE order_id IS NULL AND chain = 'ethereum' LIMIT 1`,
    );
    const address = settled?.address ?? "";
    const cookie = await adminCookie(t.app);
    const evmCosts = async () => {
      const reply = await t.app.inject({ method: "GET", url: "/api/v1/admin/wallet", headers: { cookie } });
      expect(reply.statusCode, reply.body).toBe(200);
      return (reply.json() as { sweep_costs: { evm: Record<string, unknown>[] } }).sweep_costs.evm;
    };
    // Independently: every receipt's gas used x effective gas price (of the rounds asked for), and
    // the ETH on the address now.
    const paid = async (chain: ChainId, rounds: number[]) => {
      const p = provider(devnet(chain));
      let gas = 0n;
      let sweep = 0n;
      for (const tx of await sweepsSent(address, chain)) {
        if (!rounds.includes(Number(tx.ref.split(":")[1]))) continue;
        const receipt = await p.getTransactionReceipt(tx.tx_hash);
        if (!receipt) throw new Error(`no receipt for ${tx.tx_hash}`);
        if (tx.purpose === "sweep_gas") gas += receipt.gasUsed * receipt.gasPrice;
        else sweep += receipt.gasUsed * receipt.gasPrice;
      }
      return { gas, sweep };
    };
    const window = (count: number, { gas, sweep }: { gas: bigint; sweep: bigint }) => ({
      count,
      gas_cost_wei: gas.toString(),
      gas_cost: formatEther18(gas),
      sweep_gas_cost_wei: sweep.toString(),
      sweep_gas_cost: formatEther18(sweep),
      total_wei: (gas + sweep).toString(),
      total: formatEther18(gas + sweep),
      average_wei: ((gas + sweep) / BigInt(count)).toString(),
      average: formatEther18((gas + sweep) / BigInt(count)),
    });
    const expected = async (chain: ChainId, symbol: string, rounds: number[], weekRounds: number[]) => {
      const all = await paid(chain, rounds);
      expect(all.gas).toBeGreaterThan(0n);
      const dust = await provider(devnet(chain)).getBalance(address);
      expect(dust).toBeGreaterThan(0n);
      return {
        chain,
        native_symbol: symbol,
        sweeps: rounds.length,
        gas_cost_wei: all.gas.toString(),
        gas_cost: formatEther18(all.gas),
        sweep_gas_cost_wei: all.sweep.toString(),
        sweep_gas_cost: formatEther18(all.sweep),
        total_wei: (all.gas + all.sweep).toString(),
        total: formatEther18(all.gas + all.sweep),
        dust_wei: dust.toString(),
        dust: formatEther18(dust),
        windows: {
          week: window(weekRounds.length, await paid(chain, weekRounds)),
          total: window(rounds.length, all),
        },
      };
    };
    // Ethereum swept the address twice (its dust counted once, as it is now), bsc once; all this week.
    expect(await evmCosts()).toEqual([
      await expected("ethereum", "ETH", [1, 2], [1, 2]),
      await expected("bsc", "BNB", [1], [1]),
    ]);

    // Ethereum's first sweep dated 8 days ago: out of the 7 UTC days, still in all time.
    await t.ctx.db.execute(
      sql`UPDATE evm_sweep_legs SET swept_at = ${new Date(
        t.clock.now().getTime() - 8 * 86_400_000,
      ).toISOString()}::timestamptz WHERE chain = 'ethereum' AND round = 1`,
    );
    expect(await evmCosts()).toEqual([
      await expected("ethereum", "ETH", [1, 2], [2]),
      await expected("bsc", "BNB", [1], [1]),
    ]);
  });
});

/** Wei as an exact 18-decimal string, all decimals kept (ethers drops trailing zeros). */
function formatEther18(wei: bigint): string {
  const [whole, fraction = ""] = formatEther(wei).split(".");
  return `${whole}.${fraction.padEnd(18, "0")}`;
}
