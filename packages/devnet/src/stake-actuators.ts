// The five Stake 2.0 system contracts, with java-tron's validation order and messages (its
// FreezeBalanceV2, UnfreezeBalanceV2, WithdrawExpireUnfreeze, DelegateResource and UnDelegateResource
// actuators). Each runs after bandwidth was billed (`owner` already carries that bill) and either
// throws a Refusal, changing nothing, or writes its effects and returns withdraw_expire_amount.
import type {
  DelegateResourceContractJson,
  FreezeBalanceV2ContractJson,
  UnDelegateResourceContractJson,
  UnfreezeBalanceV2ContractJson,
} from "@stablegate/tron/protobuf";
import { validateError } from "./refusal.js";
import {
  DEFAULT_LOCK_PERIOD,
  TRX,
  UNFREEZE_MAX_TIMES,
  addWeight,
  delegatableEnergy,
  delegatableNet,
  indexDelegation,
  readDelegation,
  stakeOf,
  totals,
  unindexDelegation,
  unlockExpired,
  weightOf,
  withStake,
  writeDelegation,
  type ExecEnv,
  type Resource,
  type SlotRead,
} from "./stake.js";
import type { Account, AccountStake, State } from "./state.js";
import { SLOT_MS, consume, takeBack } from "./usage.js";

const ADDRESS = /^41[0-9a-f]{40}$/;

function resourceOf(r: string | undefined): Resource {
  return (r ?? "BANDWIDTH") as Resource;
}

function frozenField(r: Resource): "frozenNet" | "frozenEnergy" | "frozenPower" {
  return r === "ENERGY" ? "frozenEnergy" : r === "BANDWIDTH" ? "frozenNet" : "frozenPower";
}

/** Writes the account and moves the network weight by the change in its whole-TRX weight. */
function putWithWeight(state: State, before: Account, after: Account, r: Resource): void {
  addWeight(state, r, weightOf(stakeOf(after), r) - weightOf(stakeOf(before), r));
  state.putAccount(after);
}

export function freezeBalanceV2(state: State, owner: Account, v: FreezeBalanceV2ContractJson): bigint {
  const amount = BigInt(v.frozen_balance ?? 0);
  if (amount <= 0n) throw validateError("frozenBalance must be positive");
  if (amount < TRX) throw validateError("frozenBalance must be greater than or equal to 1 TRX");
  if (amount > owner.balance)
    throw validateError("frozenBalance must be less than or equal to accountBalance");
  const r = resourceOf(v.resource);
  // TRON_POWER needs the new resource model, which mainnet has not enabled (getAllowNewResourceModel 0).
  if (r !== "BANDWIDTH" && r !== "ENERGY")
    throw validateError("ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]");
  const field = frozenField(r);
  const after = withStake(
    { ...owner, balance: owner.balance - amount },
    {
      [field]: stakeOf(owner)[field] + amount,
    },
  );
  putWithWeight(state, owner, after, r);
  return 0n;
}

function expiredUnfreezes(s: AccountStake, now: number): bigint {
  return s.unfrozen.filter((u) => u.expireTime <= now).reduce((sum, u) => sum + u.amount, 0n);
}

export function unfreezeBalanceV2(
  state: State,
  owner: Account,
  v: UnfreezeBalanceV2ContractJson,
  env: ExecEnv,
): bigint {
  const r = resourceOf(v.resource);
  if (r !== "BANDWIDTH" && r !== "ENERGY")
    throw validateError("ResourceCode error.valid ResourceCode[BANDWIDTH、Energy]");
  const s = stakeOf(owner);
  const frozen = s[frozenField(r)];
  if (frozen <= 0n) throw validateError(`no frozenBalance(${r === "ENERGY" ? "Energy" : "BANDWIDTH"})`);
  const amount = BigInt(v.unfreeze_balance ?? 0);
  if (amount <= 0n || amount > frozen) throw validateError(`Invalid unfreeze_balance, [${amount}] is error`);
  const pending = s.unfrozen.filter((u) => u.expireTime > env.now).length;
  if (pending >= UNFREEZE_MAX_TIMES)
    throw validateError("Invalid unfreeze operation, unfreezing times is over limit");
  // Unfreezing first withdraws whatever has already expired.
  const withdrawn = expiredUnfreezes(s, env.now);
  const unfrozen = [
    ...s.unfrozen.filter((u) => u.expireTime > env.now),
    { resource: r, amount, expireTime: env.now + env.params.unfreezeDelayMs },
  ];
  const after = withStake(
    { ...owner, balance: owner.balance + withdrawn },
    { [frozenField(r)]: frozen - amount, unfrozen },
  );
  putWithWeight(state, owner, after, r);
  return withdrawn;
}

export function withdrawExpireUnfreeze(state: State, owner: Account, env: ExecEnv): bigint {
  const s = stakeOf(owner);
  const withdrawn = expiredUnfreezes(s, env.now);
  if (withdrawn <= 0n) throw validateError("no unFreeze balance to withdraw ");
  const unfrozen = s.unfrozen.filter((u) => u.expireTime > env.now);
  state.putAccount(withStake({ ...owner, balance: owner.balance + withdrawn }, { unfrozen }));
  return withdrawn;
}

function checkReceiver(owner: string, receiver: string): void {
  if (!ADDRESS.test(receiver)) throw validateError("Invalid receiverAddress");
  if (receiver === owner) throw validateError("receiverAddress must not be the same as ownerAddress");
}

export function delegateResource(
  state: State,
  owner: Account,
  v: DelegateResourceContractJson,
  env: ExecEnv,
): bigint {
  const balance = BigInt(v.balance ?? 0);
  if (balance < TRX) throw validateError("delegateBalance must be greater than or equal to 1 TRX");
  const r = resourceOf(v.resource);
  const read: SlotRead = (st, k) => state.getSlot(st, k);
  const t = totals(read, env.params);
  if (r === "ENERGY") {
    if (delegatableEnergy(owner, t, env.slot) < balance)
      throw validateError("delegateBalance must be less than or equal to available FreezeEnergyV2 balance");
  } else if (r === "BANDWIDTH") {
    if (delegatableNet(owner, t, env.slot) < balance)
      throw validateError(
        "delegateBalance must be less than or equal to available FreezeBandwidthV2 balance",
      );
  } else throw validateError("ResourceCode error, valid ResourceCode[BANDWIDTH、ENERGY]");
  const to = v.receiver_address;
  checkReceiver(owner.address, to);
  // Contracts are accounts on java-tron, so they pass the existence check and fail the next one.
  const isContract = state.tokens.has(to);
  const receiver = state.getAccount(to);
  if (!receiver && !isContract) throw validateError(`Account[${to}] not exists`);
  const lockPeriod = v.lock_period ? v.lock_period : DEFAULT_LOCK_PERIOD;
  if (v.lock) {
    const max = env.params.maxDelegateLockPeriod;
    if (lockPeriod < 0 || lockPeriod > max) {
      throw validateError(
        `The lock period of delegate resource cannot be less than 0 and cannot exceed ${max}!`,
      );
    }
    const locked = readDelegation(read, owner.address, to, true);
    const expire = locked ? (r === "ENERGY" ? locked.energyExpire : locked.netExpire) : undefined;
    if (expire !== undefined && lockPeriod * SLOT_MS < expire - env.now) {
      throw validateError(
        `The lock period for ${r} this time cannot be less than the remaining time[${expire - env.now}ms] of the last lock period for ${r}!`,
      );
    }
  }
  if (isContract || !receiver) throw validateError("Do not allow delegate resources to contract addresses");

  unlockExpired(state, owner.address, to, env.now);
  const lock = v.lock === true;
  const expireTime = lock ? env.now + lockPeriod * SLOT_MS : 0;
  const rec = readDelegation(read, owner.address, to, lock) ?? {
    energy: 0n,
    energyExpire: 0,
    net: 0n,
    netExpire: 0,
  };
  const s = stakeOf(owner);
  const rs = stakeOf(receiver);
  if (r === "ENERGY") {
    writeDelegation(state, owner.address, to, lock, {
      ...rec,
      energy: rec.energy + balance,
      energyExpire: expireTime,
    });
    state.putAccount(
      withStake(owner, {
        delegatedEnergy: s.delegatedEnergy + balance,
        frozenEnergy: s.frozenEnergy - balance,
      }),
    );
    state.putAccount(withStake(receiver, { acquiredEnergy: rs.acquiredEnergy + balance }));
  } else {
    writeDelegation(state, owner.address, to, lock, {
      ...rec,
      net: rec.net + balance,
      netExpire: expireTime,
    });
    state.putAccount(
      withStake(owner, { delegatedNet: s.delegatedNet + balance, frozenNet: s.frozenNet - balance }),
    );
    state.putAccount(withStake(receiver, { acquiredNet: rs.acquiredNet + balance }));
  }
  indexDelegation(state, owner.address, to, env.now);
  return 0n;
}

export function unDelegateResource(
  state: State,
  owner: Account,
  v: UnDelegateResourceContractJson,
  env: ExecEnv,
): bigint {
  const to = v.receiver_address;
  checkReceiver(owner.address, to);
  const read: SlotRead = (st, k) => state.getSlot(st, k);
  const unlocked = readDelegation(read, owner.address, to, false);
  const locked = readDelegation(read, owner.address, to, true);
  if (!unlocked && !locked) throw validateError("delegated Resource does not exist");
  const balance = BigInt(v.balance ?? 0);
  if (balance <= 0n) throw validateError("unDelegateBalance must be more than 0 TRX");
  const r = resourceOf(v.resource);
  if (r === "ENERGY") {
    const available =
      (unlocked?.energy ?? 0n) + (locked && locked.energyExpire < env.now ? locked.energy : 0n);
    if (available < balance) {
      throw validateError(
        `insufficient delegateFrozenBalance(Energy), request=${balance}, unlock_balance=${available}`,
      );
    }
  } else if (r === "BANDWIDTH") {
    const available = (unlocked?.net ?? 0n) + (locked && locked.netExpire < env.now ? locked.net : 0n);
    if (available < balance) {
      throw validateError(
        `insufficient delegatedFrozenBalance(BANDWIDTH), request=${balance}, unlock_balance=${available}`,
      );
    }
  } else throw validateError("ResourceCode error.valid ResourceCode[BANDWIDTH、Energy]");

  const t = totals(read, env.params);
  const energy = r === "ENERGY";
  // The receiver gives back the share of its usage that the returned stake backed.
  const receiver = state.getAccount(to);
  let transfer = 0;
  let receiverUsage = null;
  if (receiver) {
    const rs = stakeOf(receiver);
    const current = consume(energy ? rs.energy : rs.net, 0, env.slot);
    const acquired = energy ? rs.acquiredEnergy : rs.acquiredNet;
    let newAcquired = 0n;
    if (acquired >= balance) {
      const [limit, weight] = energy ? [t.energyLimit, t.energyWeight] : [t.netLimit, t.netWeight];
      const maxUsage = Math.trunc((Number(balance) / 1e6) * (limit / weight));
      const all = Number((energy ? rs.frozenEnergy : rs.frozenNet) + acquired);
      transfer = Math.min(maxUsage, Math.trunc(current.usage * (Number(balance) / all)));
      newAcquired = acquired - balance;
    }
    receiverUsage = current;
    const usage = { ...current, usage: current.usage - transfer, time: env.slot };
    state.putAccount(
      withStake(
        receiver,
        energy ? { acquiredEnergy: newAcquired, energy: usage } : { acquiredNet: newAcquired, net: usage },
      ),
    );
  }
  unlockExpired(state, owner.address, to, env.now);
  const rec = readDelegation(read, owner.address, to, false);
  if (!rec) throw new Error("unlocked delegation vanished");
  const left = energy
    ? { ...rec, energy: rec.energy - balance, energyExpire: 0 }
    : { ...rec, net: rec.net - balance, netExpire: 0 };
  const emptied = left.energy === 0n && left.net === 0n;
  writeDelegation(state, owner.address, to, false, emptied ? null : left);
  if (emptied && !readDelegation(read, owner.address, to, true)) unindexDelegation(state, owner.address, to);

  const s = stakeOf(owner);
  const change: Partial<AccountStake> = energy
    ? { delegatedEnergy: s.delegatedEnergy - balance, frozenEnergy: s.frozenEnergy + balance }
    : { delegatedNet: s.delegatedNet - balance, frozenNet: s.frozenNet + balance };
  if (receiverUsage && transfer > 0) {
    const back = takeBack(energy ? s.energy : s.net, receiverUsage, transfer, env.slot);
    if (energy) change.energy = back;
    else change.net = back;
  }
  state.putAccount(withStake(owner, change));
  return 0n;
}
