import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TronWeb } from "tronweb";
import type { Devnet } from "@stablegate/devnet";
import { createNodeClient } from "@stablegate/tron/node-client";
import { buildDelegateResource } from "@stablegate/tron/transaction";
import { freshDevnet, fund, hexToUtf8, newAccount, post, tronWebFor, type Info } from "./helpers.js";

// Stake 2.0 through TronWeb, unmodified: transactionBuilder builds, trx.sign signs, sendRawTransaction
// broadcasts. 1e11 energy a day over 1e10 TRX of network weight: about 10 energy per staked TRX.
const LIMIT = 100_000_000_000;
const BASE_WEIGHT = 10_000_000_000;
const TRX = 1_000_000;
const DAY = 86_400_000;
const UNFREEZE_DELAY = 60_000;

type Account = Awaited<ReturnType<typeof newAccount>>;
type Resource = Record<string, number | undefined>;
type Sent = { result?: boolean; code?: string; message?: string; txid?: string };

let devnet: Devnet;
let tw: TronWeb;
let hot: Account;
let cold: Account;

beforeAll(async () => {
  devnet = await freshDevnet({
    totalEnergyLimit: LIMIT,
    totalEnergyWeight: BASE_WEIGHT,
    unfreezeDelayMs: UNFREEZE_DELAY,
  });
  tw = tronWebFor(devnet);
  hot = await newAccount();
  cold = await newAccount();
  await fund(devnet, hot.base58, "1000000");
  await fund(devnet, cold.base58, "1", "1"); // the cold wallet already holds USDT
});
afterAll(() => devnet.close());

async function send(tx: unknown, key: string): Promise<Sent> {
  const signed = await tw.trx.sign(tx as never, key);
  return (await tw.trx.sendRawTransaction(signed as never)) as unknown as Sent;
}

async function ok(tx: unknown, key: string): Promise<string> {
  const r = await send(tx, key);
  if (!r.result) throw new Error(`refused: ${r.code} ${hexToUtf8(r.message ?? "")}`);
  return r.txid as string;
}

function refusal(r: Sent): string {
  expect(r.result).toBeFalsy();
  expect(r.code).toBe("CONTRACT_VALIDATE_ERROR");
  return hexToUtf8(r.message ?? "");
}

async function info(txid: string): Promise<Info & Record<string, unknown>> {
  devnet.mine(4);
  return (await tw.trx.getTransactionInfo(txid)) as never;
}

async function resource(address: string): Promise<Resource> {
  return (await tw.trx.getAccountResources(address)) as unknown as Resource;
}

async function account(address: string): Promise<Record<string, unknown>> {
  return post(devnet, "/wallet/getaccount", { address, visible: true });
}

async function balance(address: string): Promise<number> {
  return ((await account(address)).balance as number | undefined) ?? 0;
}

/** java-tron's calculateGlobalEnergyLimitV2. */
function energyFor(sun: number, weight: number): number {
  return Math.trunc((sun / TRX) * (LIMIT / weight));
}

async function delegate(to: string, trx: number, lock = false, lockPeriod?: number): Promise<Sent> {
  const tx = await tw.transactionBuilder.delegateResource(
    trx * TRX,
    to,
    "ENERGY",
    hot.base58,
    lock,
    lockPeriod,
  );
  return send(tx, hot.privateKey);
}

async function usdtTransfer(from: Account, to: string, units: number): Promise<string> {
  const { transaction } = await tw.transactionBuilder.triggerSmartContract(
    devnet.usdtContract,
    "transfer(address,uint256)",
    { feeLimit: 100 * TRX },
    [
      { type: "address", value: to },
      { type: "uint256", value: units },
    ],
    from.base58,
  );
  return ok(transaction, from.privateKey);
}

describe("devnet Stake 2.0", () => {
  let weight = BASE_WEIGHT;

  it("freezes TRX for energy with freezeBalanceV2: frozenV2, network weight and energy limit follow", async () => {
    const before = await balance(hot.base58);
    const tx = await tw.transactionBuilder.freezeBalanceV2(100_000 * TRX, "ENERGY", hot.base58);
    const i = await info(await ok(tx, hot.privateKey));
    expect(i.receipt).toEqual({ net_usage: expect.any(Number) }); // free bandwidth, nothing burnt
    expect(await balance(hot.base58)).toBe(before - 100_000 * TRX);
    weight += 100_000;
    const acc = await account(hot.base58);
    expect(acc.frozenV2).toEqual([{}, { type: "ENERGY", amount: 100_000 * TRX }, { type: "TRON_POWER" }]);
    const r = await resource(hot.base58);
    expect(r.TotalEnergyWeight).toBe(weight);
    expect(r.TotalEnergyLimit).toBe(LIMIT);
    expect(r.EnergyLimit).toBe(energyFor(100_000 * TRX, weight));
    expect(r.EnergyLimit).toBeGreaterThan(999_000);
    expect(r.tronPowerLimit).toBe(100_000);
    expect(r.EnergyUsed).toBeUndefined();
    // what java-tron refuses
    const small = await tw.transactionBuilder.freezeBalanceV2(TRX - 1, "ENERGY", hot.base58);
    expect(refusal(await send(small, hot.privateKey))).toBe(
      "Contract validate error : frozenBalance must be greater than or equal to 1 TRX",
    );
    const tooMuch = await tw.transactionBuilder.freezeBalanceV2(2_000_000 * TRX, "ENERGY", hot.base58);
    expect(refusal(await send(tooMuch, hot.privateKey))).toBe(
      "Contract validate error : frozenBalance must be less than or equal to accountBalance",
    );
  });

  it("delegates energy with delegateResource: a USDT transfer from the receiver burns no TRX", async () => {
    const deposit = await newAccount();
    await fund(devnet, deposit.base58, "1", "25");
    const r = await delegate(deposit.base58, 7_000);
    expect(r.result).toBe(true);
    devnet.mine(4);
    const got = await resource(deposit.base58);
    expect(got.EnergyLimit).toBe(energyFor(7_000 * TRX, weight));
    expect(got.EnergyLimit).toBeGreaterThan(64_285);
    const hotAcc = await account(hot.base58);
    expect(hotAcc.frozenV2).toEqual([{}, { type: "ENERGY", amount: 93_000 * TRX }, { type: "TRON_POWER" }]);
    expect(hotAcc.account_resource).toMatchObject({ delegated_frozenV2_balance_for_energy: 7_000 * TRX });
    expect((await account(deposit.base58)).account_resource).toMatchObject({
      acquired_delegated_frozenV2_balance_for_energy: 7_000 * TRX,
    });
    // the delegation reads, as TronWeb asks for them (solidified by default)
    expect(await tw.trx.getDelegatedResourceV2(hot.base58, deposit.base58)).toEqual({
      delegatedResource: [{ from: hot.hex, to: deposit.hex, frozen_balance_for_energy: 7_000 * TRX }],
    });
    expect(await tw.trx.getDelegatedResourceAccountIndexV2(hot.base58)).toMatchObject({
      account: hot.hex,
      toAccounts: [deposit.hex],
    });
    expect(await tw.trx.getCanDelegatedMaxSize(hot.base58, "ENERGY")).toEqual({ max_size: 93_000 * TRX });
    expect(await tw.trx.getAvailableUnfreezeCount(hot.base58)).toEqual({ count: 32 });

    const before = await balance(deposit.base58);
    const i = await info(await usdtTransfer(deposit, cold.base58, 25 * TRX));
    expect(i.receipt).toEqual({
      energy_usage: 64_285,
      energy_usage_total: 64_285,
      net_usage: expect.any(Number),
      result: "SUCCESS",
    });
    expect(i.fee).toBeUndefined();
    expect(await balance(deposit.base58)).toBe(before);
    expect((await resource(deposit.base58)).EnergyUsed).toBeGreaterThan(64_200); // recovering from 64,285
  });

  it("burns exactly the energy the delegation does not cover", async () => {
    const deposit = await newAccount();
    await fund(devnet, deposit.base58, "20", "10");
    expect((await delegate(deposit.base58, 3_000)).result).toBe(true);
    devnet.mine(1);
    const limit = energyFor(3_000 * TRX, weight);
    expect((await resource(deposit.base58)).EnergyLimit).toBe(limit);
    const before = await balance(deposit.base58);
    const i = await info(await usdtTransfer(deposit, cold.base58, 10 * TRX));
    const burnt = (64_285 - limit) * 100;
    expect(i.receipt).toMatchObject({
      energy_usage: limit,
      energy_fee: burnt,
      energy_usage_total: 64_285,
      result: "SUCCESS",
    });
    expect(i.fee).toBe(burnt);
    expect(await balance(deposit.base58)).toBe(before - burnt);
  });

  it("refuses delegation to an account that does not exist, and to the owner itself, with java-tron's messages", async () => {
    const ghost = await newAccount();
    expect(refusal(await delegate(ghost.base58, 10))).toBe(
      `Contract validate error : Account[${ghost.hex}] not exists`,
    );
    expect(refusal(await delegate(cold.base58, 500_000))).toBe(
      "Contract validate error : delegateBalance must be less than or equal to available FreezeEnergyV2 balance",
    );
    // TronWeb refuses owner == receiver itself; our builder does not, so the node's check is reached
    const head = (await tw.trx.getCurrentBlock()) as {
      blockID: string;
      block_header: { raw_data: { number: number; timestamp: number } };
    };
    const selfTx = buildDelegateResource({
      owner: hot.base58,
      receiver: hot.base58,
      balance: BigInt(TRX),
      resource: "ENERGY",
      refBlock: {
        number: head.block_header.raw_data.number,
        hash: head.blockID,
        timestamp: head.block_header.raw_data.timestamp,
      },
    });
    expect(refusal(await send(selfTx, hot.privateKey))).toBe(
      "Contract validate error : receiverAddress must not be the same as ownerAddress",
    );
  });

  it("undelegates with undelegateResource, refuses more than was delegated, and hands the used energy back", async () => {
    const deposit = await newAccount();
    await fund(devnet, deposit.base58, "1", "5");
    expect((await delegate(deposit.base58, 7_000)).result).toBe(true);
    await info(await usdtTransfer(deposit, cold.base58, 5 * TRX));
    const hotUsedBefore = (await resource(hot.base58)).EnergyUsed ?? 0;

    const tooMuch = await tw.transactionBuilder.undelegateResource(
      7_001 * TRX,
      deposit.base58,
      "ENERGY",
      hot.base58,
    );
    expect(refusal(await send(tooMuch, hot.privateKey))).toBe(
      `Contract validate error : insufficient delegateFrozenBalance(Energy), request=${7_001 * TRX}, unlock_balance=${7_000 * TRX}`,
    );
    const stranger = await tw.transactionBuilder.undelegateResource(TRX, hot.base58, "ENERGY", cold.base58);
    expect(refusal(await send(stranger, cold.privateKey))).toBe(
      "Contract validate error : delegated Resource does not exist",
    );

    const tx = await tw.transactionBuilder.undelegateResource(
      7_000 * TRX,
      deposit.base58,
      "ENERGY",
      hot.base58,
    );
    await info(await ok(tx, hot.privateKey));
    const dep = await resource(deposit.base58);
    expect(dep.EnergyLimit).toBeUndefined();
    expect(dep.EnergyUsed).toBeUndefined();
    // the receiver's usage backed by the returned stake goes back to the owner
    // (a few units may already have recovered if a 3 s slot passed between the blocks)
    const handedBack = ((await resource(hot.base58)).EnergyUsed ?? 0) - hotUsedBefore;
    expect(handedBack).toBeLessThanOrEqual(64_285);
    expect(handedBack).toBeGreaterThan(64_200);
    expect(await tw.trx.getDelegatedResourceV2(hot.base58, deposit.base58, { confirmed: false })).toEqual({});
    const index = (await tw.trx.getDelegatedResourceAccountIndexV2(hot.base58, { confirmed: false })) as {
      toAccounts?: string[];
    };
    expect(index.toAccounts ?? []).not.toContain(deposit.hex);
  });

  it("recovers used energy linearly over 24 h of block time", async () => {
    const used = (await resource(hot.base58)).EnergyUsed as number;
    expect(used).toBeGreaterThan(64_200);
    devnet.advanceClock(DAY / 2);
    const half = (await resource(hot.base58)).EnergyUsed as number;
    expect(half).toBeGreaterThanOrEqual(Math.floor(used / 2) - 2);
    expect(half).toBeLessThanOrEqual(Math.ceil(used / 2) + 2);
    devnet.advanceClock(DAY / 2);
    expect((await resource(hot.base58)).EnergyUsed).toBeUndefined();
  });

  it("keeps a locked delegation until its lock period is over", async () => {
    const deposit = await newAccount();
    await fund(devnet, deposit.base58, "1");
    expect((await delegate(deposit.base58, 100, true, 100)).result).toBe(true);
    devnet.mine(1);
    const [res] = (
      (await tw.trx.getDelegatedResourceV2(hot.base58, deposit.base58, { confirmed: false })) as unknown as {
        delegatedResource: Record<string, number>[];
      }
    ).delegatedResource;
    expect(res?.frozen_balance_for_energy).toBe(100 * TRX);
    expect(res?.expire_time_for_energy).toBeGreaterThan(Date.now() + 250_000);
    const early = await tw.transactionBuilder.undelegateResource(
      100 * TRX,
      deposit.base58,
      "ENERGY",
      hot.base58,
    );
    expect(refusal(await send(early, hot.privateKey))).toBe(
      `Contract validate error : insufficient delegateFrozenBalance(Energy), request=${100 * TRX}, unlock_balance=0`,
    );
    devnet.advanceClock(301_000);
    const later = await tw.transactionBuilder.undelegateResource(
      100 * TRX,
      deposit.base58,
      "ENERGY",
      hot.base58,
    );
    expect((await send(later, hot.privateKey)).result).toBe(true);
  });

  it("unfreezes with unfreezeBalanceV2 and withdraws after the delay with withdrawExpireUnfreeze", async () => {
    const tx = await tw.transactionBuilder.unfreezeBalanceV2(1_000 * TRX, "ENERGY", hot.base58);
    await info(await ok(tx, hot.privateKey));
    weight -= 1_000;
    const acc = await account(hot.base58);
    const unfrozen = acc.unfrozenV2 as {
      type: string;
      unfreeze_amount: number;
      unfreeze_expire_time: number;
    }[];
    expect(unfrozen).toHaveLength(1);
    expect(unfrozen[0]).toMatchObject({ type: "ENERGY", unfreeze_amount: 1_000 * TRX });
    expect((await resource(hot.base58)).TotalEnergyWeight).toBe(weight);
    expect(await tw.trx.getAvailableUnfreezeCount(hot.base58, { confirmed: false })).toEqual({ count: 31 });

    const early = await tw.transactionBuilder.withdrawExpireUnfreeze(hot.base58);
    expect(refusal(await send(early, hot.privateKey))).toBe(
      "Contract validate error : no unFreeze balance to withdraw ",
    );
    devnet.advanceClock(UNFREEZE_DELAY + 1);
    const before = await balance(hot.base58);
    const withdraw = await tw.transactionBuilder.withdrawExpireUnfreeze(hot.base58);
    const i = await info(await ok(withdraw, hot.privateKey));
    expect(i.withdraw_expire_amount).toBe(1_000 * TRX);
    expect(await balance(hot.base58)).toBe(before + 1_000 * TRX - (i.fee ?? 0));
    expect((await account(hot.base58)).unfrozenV2).toBeUndefined();
    const tooMuch = await tw.transactionBuilder.unfreezeBalanceV2(10_000_000 * TRX, "ENERGY", hot.base58);
    expect(refusal(await send(tooMuch, hot.privateKey))).toBe(
      `Contract validate error : Invalid unfreeze_balance, [${10_000_000 * TRX}] is error`,
    );
  });
});

describe("devnet Stake 2.0: bandwidth, clock, forks and restarts", () => {
  it("pays bandwidth from staked bandwidth first, leaving the free bandwidth and the balance alone", async () => {
    const owner = await newAccount();
    await fund(devnet, owner.base58, "20000");
    const freeze = await tw.transactionBuilder.freezeBalanceV2(10_000 * TRX, "BANDWIDTH", owner.base58);
    const first = await info(await ok(freeze, owner.privateKey));
    const afterFreeze = await resource(owner.base58);
    // the freeze itself was paid from free bandwidth; from now on the stake pays
    expect(afterFreeze.freeNetUsed).toBe(first.receipt.net_usage);
    expect(afterFreeze.NetLimit).toBe(
      Math.trunc(10_000 * (43_200_000_000 / (afterFreeze.TotalNetWeight as number))),
    );
    const before = await balance(owner.base58);
    const send1 = await tw.transactionBuilder.sendTrx(cold.base58, 1, owner.base58);
    const i = await info(await ok(send1, owner.privateKey));
    expect(i.receipt).toEqual({ net_usage: expect.any(Number) });
    const after = await resource(owner.base58);
    expect(after.NetUsed).toBe(i.receipt.net_usage);
    expect(after.freeNetUsed).toBe(afterFreeze.freeNetUsed);
    expect(await balance(owner.base58)).toBe(before - 1);
    expect((await account(owner.base58)).net_usage).toBe(i.receipt.net_usage);
    // activating an account: the stake covers the bandwidth, only the 1 TRX creation fee is burnt
    const fresh = await newAccount();
    const activate = await tw.transactionBuilder.sendTrx(fresh.base58, 1, owner.base58);
    const a = await info(await ok(activate, owner.privateKey));
    expect(a.receipt).toEqual({ net_usage: expect.any(Number) });
    expect(a.fee).toBe(TRX);
  });

  it("spends the caller's own staked energy the same way, and mixes own and delegated energy", async () => {
    const payer = await newAccount();
    await fund(devnet, payer.base58, "20000", "3");
    const freeze = await tw.transactionBuilder.freezeBalanceV2(4_000 * TRX, "ENERGY", payer.base58);
    const weightBefore = (await resource(payer.base58)).TotalEnergyWeight as number;
    await ok(freeze, payer.privateKey);
    expect((await delegate(payer.base58, 4_000)).result).toBe(true);
    devnet.mine(1);
    const r = await resource(payer.base58);
    expect(r.TotalEnergyWeight).toBe(weightBefore + 4_000);
    // own and acquired stake make one limit
    expect(r.EnergyLimit).toBe(energyFor(8_000 * TRX, weightBefore + 4_000));
    const before = await balance(payer.base58);
    const i = await info(await usdtTransfer(payer, cold.base58, TRX));
    expect(i.receipt).toMatchObject({ energy_usage: 64_285, energy_usage_total: 64_285, result: "SUCCESS" });
    expect(i.receipt.energy_fee).toBeUndefined();
    expect(await balance(payer.base58)).toBe(before - (i.fee ?? 0));
    expect(i.fee ?? 0).toBe(i.receipt.net_fee ?? 0);
  });

  it("advances the clock over HTTP, and a fork reverts a delegation with the network weight", async () => {
    const t0 = devnet.mine(0);
    const r = await post<{ head: number; timestamp: number }>(devnet, "/devnet/time", {
      advance_ms: 3_600_000,
    });
    expect(r.head).toBe(t0 + 1);
    const bad = await fetch(devnet.url + "/devnet/time", {
      method: "POST",
      body: JSON.stringify({ advance_ms: -5 }),
    });
    expect(bad.status).toBe(400);

    const deposit = await newAccount();
    await fund(devnet, deposit.base58, "1");
    const weightBefore = (await resource(hot.base58)).TotalEnergyWeight;
    const freeze = await tw.transactionBuilder.freezeBalanceV2(5_000 * TRX, "ENERGY", hot.base58);
    await ok(freeze, hot.privateKey);
    expect((await delegate(deposit.base58, 50)).result).toBe(true);
    devnet.mine(1);
    expect((await resource(hot.base58)).TotalEnergyWeight).toBe((weightBefore as number) + 5_000);
    expect((await resource(deposit.base58)).EnergyLimit).toBeGreaterThan(0);
    await post(devnet, "/devnet/fork", { depth: 1 });
    expect((await resource(hot.base58)).TotalEnergyWeight).toBe(weightBefore);
    expect((await resource(deposit.base58)).EnergyLimit).toBeUndefined();
    expect(await tw.trx.getDelegatedResourceV2(hot.base58, deposit.base58, { confirmed: false })).toEqual({});
  });

  it("keeps stake, delegations and the clock across a restart from the state file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "devnet-stake-"));
    const stateFile = join(dir, "chain.ndjson");
    const opts = { totalEnergyLimit: LIMIT, totalEnergyWeight: BASE_WEIGHT, stateFile };
    const a = await freshDevnet(opts);
    const owner = await newAccount();
    const receiver = await newAccount();
    let delegatedAt = 0;
    try {
      await fund(a, owner.base58, "10000");
      await fund(a, receiver.base58, "1");
      const t = tronWebFor(a, owner.privateKey);
      const freeze = await t.transactionBuilder.freezeBalanceV2(2_000 * TRX, "ENERGY", owner.base58);
      await t.trx.sendRawTransaction((await t.trx.sign(freeze, owner.privateKey)) as never);
      const del = await t.transactionBuilder.delegateResource(
        500 * TRX,
        receiver.base58,
        "ENERGY",
        owner.base58,
      );
      await t.trx.sendRawTransaction((await t.trx.sign(del, owner.privateKey)) as never);
      a.advanceClock(2 * DAY);
      delegatedAt = (await post<{ head_timestamp: number }>(a, "/devnet/info")).head_timestamp;
    } finally {
      await a.close();
    }
    const b = await freshDevnet(opts);
    try {
      const t = tronWebFor(b);
      expect(await t.trx.getDelegatedResourceV2(owner.base58, receiver.base58, { confirmed: false })).toEqual(
        {
          delegatedResource: [{ from: owner.hex, to: receiver.hex, frozen_balance_for_energy: 500 * TRX }],
        },
      );
      const r = (await t.trx.getAccountResources(receiver.base58)) as unknown as Resource;
      expect(r.TotalEnergyWeight).toBe(BASE_WEIGHT + 2_000);
      expect(r.EnergyLimit).toBe(energyFor(500 * TRX, BASE_WEIGHT + 2_000));
      // the chain's time does not fall back to the wall clock after the restart
      b.mine(1);
      expect((await post<{ head_timestamp: number }>(b, "/devnet/info")).head_timestamp).toBeGreaterThan(
        delegatedAt,
      );
    } finally {
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("src/tron's node client against the devnet's Stake 2.0 reads", () => {
  it("reads delegations, delegatable size, unfreeze count and resources in java-tron's field names", async () => {
    const client = createNodeClient({ baseUrl: devnet.url });
    try {
      const owner = await newAccount();
      const receiver = await newAccount();
      await fund(devnet, owner.base58, "10000");
      await fund(devnet, receiver.base58, "1");
      await ok(
        await tw.transactionBuilder.freezeBalanceV2(5_000 * TRX, "ENERGY", owner.base58),
        owner.privateKey,
      );
      const del = await tw.transactionBuilder.delegateResource(
        2_000 * TRX,
        receiver.base58,
        "ENERGY",
        owner.base58,
      );
      await ok(del, owner.privateKey);
      devnet.mine(1);
      expect(await client.getDelegatedResourceV2(owner.base58, receiver.base58)).toEqual([
        { from: owner.hex, to: receiver.hex, frozen_balance_for_energy: 2_000 * TRX },
      ]);
      // not solidified yet
      expect(
        await client.getDelegatedResourceV2(owner.base58, receiver.base58, { solidified: true }),
      ).toEqual([]);
      expect(await client.getDelegatedResourceAccountIndexV2(owner.base58)).toEqual({
        account: owner.hex,
        fromAccounts: [],
        toAccounts: [receiver.hex],
      });
      expect(await client.getDelegatedResourceAccountIndexV2(receiver.base58)).toEqual({
        account: receiver.hex,
        fromAccounts: [owner.hex],
        toAccounts: [],
      });
      expect(await client.getCanDelegatedMaxSize(owner.base58, "ENERGY")).toBe(3_000 * TRX);
      expect(await client.getCanDelegatedMaxSize(owner.base58, "BANDWIDTH")).toBe(0);
      expect(await client.getAvailableUnfreezeCount(owner.base58)).toBe(32);
      expect(await client.getAvailableUnfreezeCount((await newAccount()).base58)).toBe(0);
      const r = await client.getAccountResource(receiver.base58);
      expect(r.EnergyLimit).toBe(energyFor(2_000 * TRX, r.TotalEnergyWeight as number));
      const acc = await client.getAccount(owner.base58);
      expect(acc?.account_resource?.delegated_frozenV2_balance_for_energy).toBe(2_000 * TRX);
      expect(acc?.frozenV2).toEqual([{}, { type: "ENERGY", amount: 3_000 * TRX }, { type: "TRON_POWER" }]);
    } finally {
      await client.close();
    }
  });
});
