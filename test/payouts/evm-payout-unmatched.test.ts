/**
 * A payout whose transaction is final with a success receipt but without the Transfer log of its
 * exact units to its address (docs/payouts.md "Sending on EVM chains") is held for an operator,
 * never completed and never sent again. The Arbitrum devnet's USDT and USDC are replaced by two
 * test tokens (test/fixtures/evm/OddToken.sol, compiled here with solc-js): a fee-on-transfer one
 * whose log names the amount less its fee, and one that emits no log at all. Anvil over HTTP, a
 * real database; the recipient's balance and the hot wallet's nonce are read from the chain.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { eq, sql } from "drizzle-orm";
import { Contract, ContractFactory, JsonRpcProvider, Wallet } from "ethers";
import solc from "solc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAlertConditions } from "../../src/alerts/alert-conditions.js";
import { evaluateAlerts } from "../../src/alerts/evaluate-alerts.js";
import { queryRows } from "../../src/db/query-rows.js";
import { payouts } from "../../src/db/schema.js";
import { creditMerchant } from "../../src/ledger/post-ledger.js";
import { runOutbox } from "../../src/outbox/run-outbox.js";
import { signerLookup } from "../../src/outbox/signers.js";
import { decidePayout } from "../../src/payouts/decide-payout.js";
import { runEvmPayouts } from "../../src/payouts/evm-send.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { evmDevnetForFile } from "../helpers/evm-devnet.js";
import { automineProvider, mined } from "../helpers/evm-sweeps.js";
import { addMerchant, type TestMerchant } from "../payments/helpers.js";

const SOURCE = new URL("../fixtures/evm/OddToken.sol", import.meta.url);
const FEE = 1_000n;
const net = evmDevnetForFile();
const hot = new Wallet("0x" + randomBytes(32).toString("hex"));
let t: TestApp;
let shop: TestMerchant;
/** USDT: keeps FEE units of every transfer back. USDC: emits no Transfer log. */
let feeToken: string;
let silentToken: string;

function compileOddToken(): { abi: unknown[]; bytecode: string } {
  const input = {
    language: "Solidity",
    sources: { "OddToken.sol": { content: readFileSync(SOURCE, "utf8") } },
    settings: { evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const token = output.contracts["OddToken.sol"]?.OddToken;
  if (!token) throw new Error("OddToken did not compile");
  return { abi: token.abi, bytecode: "0x" + token.evm.bytecode.object };
}

beforeAll(async () => {
  const d = net();
  const deployer = new Wallet(d.faucetPrivateKey, await automineProvider(d));
  const { abi, bytecode } = compileOddToken();
  const factory = new ContractFactory(abi as never, bytecode, deployer);
  const deploy = async (fee: bigint, silent: boolean) => {
    const token = await factory.deploy(10n ** 15n, fee, silent);
    await token.waitForDeployment();
    const address = (await token.getAddress()).toLowerCase();
    // The hot wallet's float: 1,000 tokens (less the fee the token keeps).
    const transfer = new Contract(address, abi as never, deployer).getFunction("transfer");
    await mined(transfer(hot.address, 1_000_000_000n));
    return address;
  };
  feeToken = await deploy(FEE, false);
  silentToken = await deploy(0n, true);
  await d.rpc("evm_setAutomine", [false]);
  await d.rpc("anvil_setBalance", [hot.address, "0x" + (10n ** 20n).toString(16)]);
  t = await createTestApp({
    env: {
      CHAINS: "arbitrum",
      ARBITRUM_NETWORK: "devnet",
      ARBITRUM_RPC_URL: d.rpcUrl,
      ARBITRUM_USDT_CONTRACT: feeToken,
      ARBITRUM_USDC_CONTRACT: silentToken,
      ARBITRUM_FINALITY: "finalized",
      EVM_HOT_WALLET_PRIVATE_KEY: hot.privateKey,
      EVM_COLD_WALLET_ADDRESS: Wallet.createRandom().address,
    },
  });
  shop = await addMerchant(t.ctx, "Odd Token Shop");
  for (const currency of ["USDT", "USDC"] as const) {
    await creditMerchant(t.ctx.db, {
      merchantId: shop.id,
      currency,
      amount: 100_000_000n,
      kind: "payment_received",
      refType: "test",
      refId: `seed-${currency}`,
    });
  }
}, 60_000);
afterAll(async () => {
  await t?.close();
});

function tokenBalance(token: string, holder: string): Promise<bigint> {
  const provider = new JsonRpcProvider(net().rpcUrl, undefined, { staticNetwork: true });
  const contract = new Contract(token, ["function balanceOf(address) view returns (uint256)"], provider);
  return (contract.getFunction("balanceOf")(holder) as Promise<bigint>).finally(() => provider.destroy());
}

async function hotNonce(): Promise<number> {
  return Number(BigInt(await net().rpc<string>("eth_getTransactionCount", [hot.address, "latest"])));
}

async function payoutRow(id: string) {
  const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, id));
  if (!row) throw new Error(`payout ${id} not found`);
  return row;
}

async function approvedPayout(currency: string, amount: string, to: string): Promise<string> {
  const res = await t.app.inject({
    method: "POST",
    url: "/api/v1/payouts",
    headers: { "x-api-key": shop.apiKey },
    payload: {
      external_id: `po-${randomBytes(6).toString("hex")}`,
      amount,
      address: to,
      chain: "arbitrum",
      currency,
      callback_url: "https://merchant.example/hooks",
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().id as string;
  await decidePayout(t.ctx, {
    id,
    decision: "approve",
    actor: { kind: "operator", id: "op-2", label: "second operator" },
  });
  return id;
}

/** One sender round, one outbox pass, a block, the clock past every wait (the held look's 60 s too). */
async function step() {
  await runEvmPayouts(t.ctx, "arbitrum", { owner: "test-sender" });
  await runOutbox(t.ctx, "arbitrum", { signers: signerLookup(t.ctx, "arbitrum") });
  await net().mine(1);
  t.clock.advance(61_000);
}

async function payoutTxs(id: string) {
  return queryRows<{ ref: string; state: string; success: boolean | null }>(
    t.ctx.db,
    sql`SELECT ref, state, success FROM evm_transactions
        WHERE chain = 'arbitrum' AND purpose = 'payout' AND ref LIKE ${id + "%"} ORDER BY id`,
  );
}

async function eventsOf(id: string) {
  const events = await queryRows<{ event_type: string }>(
    t.ctx.db,
    sql`SELECT event_type FROM payout_events WHERE payout_id = ${id}::uuid ORDER BY created_at, event_type`,
  );
  const hooks = await queryRows<{ event: string }>(
    t.ctx.db,
    sql`SELECT event FROM webhook_deliveries WHERE payout_id = ${id}::uuid ORDER BY created_at`,
  );
  return { events: events.map((e) => e.event_type), hooks: hooks.map((h) => h.event) };
}

describe("an EVM payout final without its Transfer log", () => {
  it.each([
    {
      token: "fee-on-transfer",
      currency: "USDT",
      amount: "5.000000",
      units: 5_000_000n,
      lands: 5_000_000n - FEE,
    },
    { token: "log-less", currency: "USDC", amount: "3.000001", units: 3_000_001n, lands: 3_000_001n },
  ])(
    "holds a $token payout for an operator: not completed, never sent again",
    async ({ currency, amount, units, lands }) => {
      const token = currency === "USDT" ? feeToken : silentToken;
      const payee = Wallet.createRandom().address;
      const before = await hotNonce();
      const hotBefore = await tokenBalance(token, hot.address);
      const id = await approvedPayout(currency, amount, payee);

      // Enough rounds for the transaction to be final and the payout looked at many times over.
      for (let i = 0; i < 12; i++) await step();

      const txs = await payoutTxs(id);
      expect(txs).toEqual([{ ref: id, state: "final", success: true }]);
      const row = await payoutRow(id);
      expect([row.status, row.attempts]).toEqual(["sending", 1]);
      expect(row.lastError).toContain(`no Transfer of ${amount} ${currency} to the payout's address`);
      expect(row.lastError).toContain("an operator must look");
      expect(row.completedAt).toBeNull();
      // The chain moved what the token moves, once: one nonce, one debit of the hot wallet.
      expect(await tokenBalance(token, payee)).toBe(lands);
      expect(await tokenBalance(token, hot.address)).toBe(hotBefore - units);
      expect(await hotNonce()).toBe(before + 1);
      // Neither completed nor failed: no such event, no such webhook.
      const { events, hooks } = await eventsOf(id);
      expect(events.filter((e) => /completed|failed/.test(e))).toEqual([]);
      expect(hooks.filter((e) => /completed|failed/.test(e))).toEqual([]);
      // The operator is told: a critical condition alert for the chain, naming the payout.
      const readings = await readAlertConditions(t.ctx, { headFreshMs: 0 });
      const held = readings.find((r) => r.key === "payout_unmatched:arbitrum");
      expect(held).toMatchObject({ alert: "payout_unmatched", severity: "critical", firing: true });
      expect(String(held?.details.payout_ids)).toContain(id);
      await evaluateAlerts(t.ctx, { headFreshMs: 0 });
      const [alertRow] = await queryRows<{ state: string; severity: string }>(
        t.ctx.db,
        sql`SELECT state, severity FROM alerts WHERE key = 'payout_unmatched:arbitrum'`,
      );
      expect(alertRow).toEqual({ state: "firing", severity: "critical" });
    },
    60_000,
  );
});
