// Resource and Stake 2.0 reads of the java-tron HTTP API: getaccountresource, getaccountnet,
// getdelegatedresourcev2, getdelegatedresourceaccountindexv2, getcandelegatedmaxsize,
// getavailableunfreezecount, getcanwithdrawunfreezeamount. Zero fields are omitted, as JsonFormat does.
import { addressParam, type Ctx, type Handler } from "./api-util.js";
import { addr } from "./json.js";
import { FREE_NET_LIMIT, freeNetUsedAt } from "./resources.js";
import {
  TRX,
  UNFREEZE_MAX_TIMES,
  delegatableEnergy,
  delegatableNet,
  delegateTxEstimate,
  delegationIndex,
  energyLimit,
  netLimit,
  readDelegation,
  STAKE_STORE,
  stakeOf,
  totals,
  type Delegation,
  type SlotRead,
} from "./stake.js";
import { recovered } from "./usage.js";

type Json = Record<string, unknown>;
const address = addressParam;

function put(out: Json, key: string, v: number | bigint): void {
  if (v) out[key] = v;
}

function reader(ctx: Ctx): SlotRead {
  return ctx.chain.slotReader(ctx.solid);
}

function invalid(): unknown {
  return { Error: "class java.lang.IllegalArgumentException : Invalid address" };
}

const getAccountResource: Handler = (p, ctx) => {
  const a = address(p.address);
  if (!a) return invalid();
  const acc = ctx.chain.account(a, false);
  if (!acc) return {};
  const { now, slot } = ctx.chain.clock();
  const t = totals(reader(ctx), ctx.chain.params);
  const s = stakeOf(acc);
  const out: Json = {};
  put(out, "freeNetUsed", freeNetUsedAt(acc, now));
  out.freeNetLimit = FREE_NET_LIMIT;
  put(out, "NetUsed", recovered(s.net, slot));
  put(out, "NetLimit", netLimit(acc, t));
  out.TotalNetLimit = t.netLimit;
  out.TotalNetWeight = t.netWeight;
  put(out, "TotalTronPowerWeight", t.tronPowerWeight);
  put(out, "tronPowerLimit", (s.frozenNet + s.frozenEnergy + s.delegatedNet + s.delegatedEnergy) / TRX);
  put(out, "EnergyUsed", recovered(s.energy, slot));
  put(out, "EnergyLimit", energyLimit(acc, t));
  out.TotalEnergyLimit = t.energyLimit;
  out.TotalEnergyWeight = t.energyWeight;
  return out;
};

const getAccountNet: Handler = (p, ctx) => {
  const a = address(p.address);
  if (!a) return invalid();
  const acc = ctx.chain.account(a, false);
  if (!acc) return {};
  const { now, slot } = ctx.chain.clock();
  const t = totals(reader(ctx), ctx.chain.params);
  const out: Json = {};
  put(out, "freeNetUsed", freeNetUsedAt(acc, now));
  out.freeNetLimit = FREE_NET_LIMIT;
  put(out, "NetUsed", recovered(stakeOf(acc).net, slot));
  put(out, "NetLimit", netLimit(acc, t));
  out.TotalNetLimit = t.netLimit;
  out.TotalNetWeight = t.netWeight;
  return out;
};

function delegationJson(from: string, to: string, d: Delegation, visible: boolean): Json {
  const out: Json = { from: addr(from, visible), to: addr(to, visible) };
  put(out, "frozen_balance_for_bandwidth", d.net);
  put(out, "frozen_balance_for_energy", d.energy);
  put(out, "expire_time_for_bandwidth", d.netExpire);
  put(out, "expire_time_for_energy", d.energyExpire);
  return out;
}

const getDelegatedResourceV2: Handler = (p, ctx) => {
  const from = p.fromAddress === undefined ? null : address(p.fromAddress);
  const to = p.toAddress === undefined ? null : address(p.toAddress);
  if ((p.fromAddress !== undefined && !from) || (p.toAddress !== undefined && !to)) return invalid();
  if (!from || !to) return {};
  const read = reader(ctx);
  const list = [false, true]
    .map((lock) => readDelegation(read, from, to, lock))
    .filter((d): d is Delegation => d !== null)
    .map((d) => delegationJson(from, to, d, ctx.visible));
  return list.length ? { delegatedResource: list } : {};
};

const getDelegatedResourceAccountIndexV2: Handler = (p, ctx) => {
  const a = address(p.value);
  if (p.value !== undefined && !a) return invalid();
  if (!a) return {};
  const keys = ctx.chain.slotKeys(STAKE_STORE, ctx.solid);
  const index = delegationIndex(keys, reader(ctx), a);
  const out: Json = { account: addr(a, ctx.visible) };
  if (index.fromAccounts.length) out.fromAccounts = index.fromAccounts.map((x) => addr(x, ctx.visible));
  if (index.toAccounts.length) out.toAccounts = index.toAccounts.map((x) => addr(x, ctx.visible));
  return out;
};

function ownerOf(p: Json): string | null | "invalid" {
  const raw = p.owner_address ?? p.ownerAddress;
  if (raw === undefined) return null;
  return address(raw) ?? "invalid";
}

const getCanDelegatedMaxSize: Handler = (p, ctx) => {
  const owner = ownerOf(p);
  if (owner === "invalid") return invalid();
  const acc = owner ? ctx.chain.account(owner, ctx.solid) : undefined;
  if (!acc) return {};
  const { slot } = ctx.chain.clock(ctx.solid);
  const t = totals(reader(ctx), ctx.chain.params);
  const type = Number(p.type ?? 0);
  let size = 0n;
  if (type === 0) {
    const extra = delegateTxEstimate(stakeOf(acc).frozenNet, ctx.chain.params.maxDelegateLockPeriod);
    size = delegatableNet(acc, t, slot, extra);
  } else if (type === 1) size = delegatableEnergy(acc, t, slot);
  if (size < TRX) size = 0n;
  return size ? { max_size: size } : {};
};

const getAvailableUnfreezeCount: Handler = (p, ctx) => {
  const owner = ownerOf(p);
  if (owner === "invalid") return invalid();
  const acc = owner ? ctx.chain.account(owner, ctx.solid) : undefined;
  if (!acc) return {};
  const { now } = ctx.chain.clock(ctx.solid);
  const pending = stakeOf(acc).unfrozen.filter((u) => u.expireTime > now).length;
  return { count: UNFREEZE_MAX_TIMES - pending };
};

const getCanWithdrawUnfreezeAmount: Handler = (p, ctx) => {
  const owner = ownerOf(p);
  if (owner === "invalid") return invalid();
  const acc = owner ? ctx.chain.account(owner, ctx.solid) : undefined;
  const ts = Number(p.timestamp ?? 0);
  if (!acc || !Number.isFinite(ts) || ts < 0) return {};
  const at = ts === 0 ? ctx.chain.clock(ctx.solid).now : ts;
  const amount = stakeOf(acc)
    .unfrozen.filter((u) => u.expireTime <= at)
    .reduce((sum, u) => sum + u.amount, 0n);
  return amount ? { amount } : {};
};

/** Handlers by lower-case name; `solidity` ones java-tron also serves under /walletsolidity. */
export const STAKE_HANDLERS: Record<string, { run: Handler; solidity: boolean }> = {
  getaccountresource: { run: getAccountResource, solidity: false },
  getaccountnet: { run: getAccountNet, solidity: false },
  getdelegatedresourcev2: { run: getDelegatedResourceV2, solidity: true },
  getdelegatedresourceaccountindexv2: { run: getDelegatedResourceAccountIndexV2, solidity: true },
  getcandelegatedmaxsize: { run: getCanDelegatedMaxSize, solidity: true },
  getavailableunfreezecount: { run: getAvailableUnfreezeCount, solidity: true },
  getcanwithdrawunfreezeamount: { run: getCanWithdrawUnfreezeAmount, solidity: true },
};
