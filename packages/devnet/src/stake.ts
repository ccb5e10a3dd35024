// Stake 2.0's state and the resource limits it gives, as java-tron computes them. Accounts carry their
// own stake (Account.stake); the chain-wide stake weights, delegation records and the delegation index
// live in contract-storage-like slots under STAKE_STORE, so blocks journal them, forks revert them,
// /walletsolidity reads them as of the solidified block and the state file persists them.
import type { Account, AccountStake, State } from "./state.js";
import { NO_USAGE, recovered, type Usage } from "./usage.js";

export type Resource = "BANDWIDTH" | "ENERGY" | "TRON_POWER";

export const TRX = 1_000_000n;
export const STAKE_STORE = "$stake";
/** java-tron's UNFREEZE_MAX_TIMES: unfreezings that may be pending at once. */
export const UNFREEZE_MAX_TIMES = 32;
/** DELEGATE_PERIOD / 3 s: the lock period in blocks when a locked delegation names none. */
export const DEFAULT_LOCK_PERIOD = 86_400;

/** The network's resource parameters (java-tron's dynamic properties); see the devnet README. */
export interface StakeParams {
  /** getTotalEnergyCurrentLimit: energy the whole network's stake shares per 24 h */
  totalEnergyLimit: number;
  /** TotalEnergyWeight before any devnet account stakes (whole TRX staked for energy elsewhere) */
  totalEnergyWeight: number;
  totalNetLimit: number;
  totalNetWeight: number;
  /** UnfreezeBalanceV2 → WithdrawExpireUnfreeze delay; mainnet 14 days */
  unfreezeDelayMs: number;
  /** getMaxDelegateLockPeriod, in blocks */
  maxDelegateLockPeriod: number;
}

export const DEFAULT_STAKE_PARAMS: StakeParams = {
  totalEnergyLimit: 180_000_000_000,
  totalEnergyWeight: 19_000_000_000,
  totalNetLimit: 43_200_000_000,
  totalNetWeight: 26_000_000_000,
  unfreezeDelayMs: 14 * 86_400_000,
  maxDelegateLockPeriod: 864_000,
};

/** What a transaction executes against besides the state: the head block's time, in ms and slots. */
export interface ExecEnv {
  now: number;
  slot: number;
  params: StakeParams;
}

/** Reads a slot as of some view (the state now, or the solidified block). */
export type SlotRead = (store: string, key: string) => bigint;

export const EMPTY_STAKE: AccountStake = {
  frozenNet: 0n,
  frozenEnergy: 0n,
  frozenPower: 0n,
  delegatedNet: 0n,
  delegatedEnergy: 0n,
  acquiredNet: 0n,
  acquiredEnergy: 0n,
  unfrozen: [],
  energy: NO_USAGE,
  net: NO_USAGE,
};

export function stakeOf(a: Account): AccountStake {
  return a.stake ?? EMPTY_STAKE;
}

export function withStake(a: Account, change: Partial<AccountStake>): Account {
  return { ...a, stake: { ...stakeOf(a), ...change } };
}

// ---- network weights ----

const WEIGHT_KEY: Record<Resource, string> = { ENERGY: "wE", BANDWIDTH: "wN", TRON_POWER: "wP" };

/** java-tron's per-account weight: whole TRX of frozen (+ delegated) stake. */
export function weightOf(s: AccountStake, r: Resource): bigint {
  if (r === "ENERGY") return (s.frozenEnergy + s.delegatedEnergy) / TRX;
  if (r === "BANDWIDTH") return (s.frozenNet + s.delegatedNet) / TRX;
  return s.frozenPower / TRX;
}

export function addWeight(state: State, r: Resource, delta: bigint): void {
  if (delta !== 0n)
    state.setSlot(STAKE_STORE, WEIGHT_KEY[r], state.getSlot(STAKE_STORE, WEIGHT_KEY[r]) + delta);
}

export interface Totals {
  energyLimit: number;
  energyWeight: number;
  netLimit: number;
  netWeight: number;
  tronPowerWeight: number;
}

export function totals(read: SlotRead, p: StakeParams): Totals {
  return {
    energyLimit: p.totalEnergyLimit,
    energyWeight: p.totalEnergyWeight + Number(read(STAKE_STORE, WEIGHT_KEY.ENERGY)),
    netLimit: p.totalNetLimit,
    netWeight: p.totalNetWeight + Number(read(STAKE_STORE, WEIGHT_KEY.BANDWIDTH)),
    tronPowerWeight: Number(read(STAKE_STORE, WEIGHT_KEY.TRON_POWER)),
  };
}

// ---- limits (calculateGlobalEnergyLimitV2 / calculateGlobalNetLimitV2) ----

function share(frozen: bigint, limit: number, weight: number): number {
  if (weight === 0) return 0;
  return Math.trunc((Number(frozen) / 1e6) * (limit / weight));
}

export function energyLimit(a: Account, t: Totals): number {
  const s = stakeOf(a);
  return share(s.frozenEnergy + s.acquiredEnergy, t.energyLimit, t.energyWeight);
}

export function netLimit(a: Account, t: Totals): number {
  const s = stakeOf(a);
  return share(s.frozenNet + s.acquiredNet, t.netLimit, t.netWeight);
}

/** Staked energy the account can still spend at `slot`. */
export function energyLeft(a: Account, t: Totals, slot: number): number {
  return Math.max(0, energyLimit(a, t) - recovered(stakeOf(a).energy, slot));
}

export function netLeft(a: Account, t: Totals, slot: number): number {
  return Math.max(0, netLimit(a, t) - recovered(stakeOf(a).net, slot));
}

/** Usage expressed in sun of stake, minus what acquired delegations cover (FreezeV2Util.getV2*Usage). */
function v2UsageSun(usage: number, acquired: bigint, weight: number, limit: number): bigint {
  const sun = BigInt(Math.trunc(usage * 1e6 * (weight / limit)));
  const v2 = sun - acquired;
  return v2 > 0n ? v2 : 0n;
}

/** Stake the owner can delegate now: its own frozen stake not backing energy it has used. */
export function delegatableEnergy(a: Account, t: Totals, slot: number): bigint {
  const s = stakeOf(a);
  const used = v2UsageSun(recovered(s.energy, slot), s.acquiredEnergy, t.energyWeight, t.energyLimit);
  return s.frozenEnergy - used;
}

export function delegatableNet(a: Account, t: Totals, slot: number, extraBytes = 0): bigint {
  const s = stakeOf(a);
  const usage = recovered(s.net, slot) + extraBytes;
  return s.frozenNet - v2UsageSun(usage, s.acquiredNet, t.netWeight, t.netLimit);
}

/** Bytes of the largest delegation java-tron assumes the next one costs (estimateConsumeBandWidthSize). */
export function delegateTxEstimate(frozenNet: bigint, maxLockPeriod: number): number {
  const varintLen = (v: bigint): number => {
    let n = 1;
    while (v > 0x7fn) {
      v >>= 7n;
      n++;
    }
    return n;
  };
  const big = 2 + 1 + varintLen(BigInt(maxLockPeriod)) + (frozenNet > 0n ? 1 + varintLen(frozenNet) : 0);
  const small = 1 + varintLen(TRX);
  return 275 + Math.max(big - small, 0);
}

// ---- delegation records ----

/** DelegatedResource: balances in sun, expire times in ms (0 = not locked). */
export interface Delegation {
  energy: bigint;
  energyExpire: number;
  net: bigint;
  netExpire: number;
}

const EMPTY_DELEGATION: Delegation = { energy: 0n, energyExpire: 0, net: 0n, netExpire: 0 };

function recordKey(from: string, to: string, lock: boolean): string {
  return "d" + from + to + (lock ? "L" : "U");
}

export function readDelegation(read: SlotRead, from: string, to: string, lock: boolean): Delegation | null {
  const k = recordKey(from, to, lock);
  const d: Delegation = {
    energy: read(STAKE_STORE, k + "eb"),
    energyExpire: Number(read(STAKE_STORE, k + "ee")),
    net: read(STAKE_STORE, k + "nb"),
    netExpire: Number(read(STAKE_STORE, k + "ne")),
  };
  const empty = d.energy === 0n && d.net === 0n && d.energyExpire === 0 && d.netExpire === 0;
  return empty ? null : d;
}

export function writeDelegation(
  state: State,
  from: string,
  to: string,
  lock: boolean,
  d: Delegation | null,
): void {
  const k = recordKey(from, to, lock);
  const v = d ?? EMPTY_DELEGATION;
  state.setSlot(STAKE_STORE, k + "eb", v.energy);
  state.setSlot(STAKE_STORE, k + "ee", BigInt(v.energyExpire));
  state.setSlot(STAKE_STORE, k + "nb", v.net);
  state.setSlot(STAKE_STORE, k + "ne", BigInt(v.netExpire));
}

/** DelegatedResourceStore.unLockExpireResource: expired locked balances become unlocked. */
export function unlockExpired(state: State, from: string, to: string, now: number): void {
  const read: SlotRead = (s, k) => state.getSlot(s, k);
  const locked = readDelegation(read, from, to, true);
  if (!locked || (locked.energyExpire >= now && locked.netExpire >= now)) return;
  const unlocked = { ...(readDelegation(read, from, to, false) ?? EMPTY_DELEGATION) };
  const rest = { ...locked };
  if (locked.energyExpire < now) {
    unlocked.energy += locked.energy;
    rest.energy = 0n;
    rest.energyExpire = 0;
  }
  if (locked.netExpire < now) {
    unlocked.net += locked.net;
    rest.net = 0n;
    rest.netExpire = 0;
  }
  writeDelegation(state, from, to, false, unlocked);
  writeDelegation(state, from, to, true, rest.energy === 0n && rest.net === 0n ? null : rest);
}

// The account index (DelegatedResourceAccountIndexStore, V2): one key per delegating pair, valued with
// the time of its latest delegation, which orders the lists as java-tron does.
function indexKey(from: string, to: string): string {
  return "i" + from + to;
}

export function indexDelegation(state: State, from: string, to: string, now: number): void {
  state.setSlot(STAKE_STORE, indexKey(from, to), BigInt(now));
}

export function unindexDelegation(state: State, from: string, to: string): void {
  state.setSlot(STAKE_STORE, indexKey(from, to), 0n);
}

/** fromAccounts / toAccounts of `address`, from the index keys present in a view. */
export function delegationIndex(
  keys: Iterable<string>,
  read: SlotRead,
  address: string,
): { fromAccounts: string[]; toAccounts: string[] } {
  const from: [string, bigint][] = [];
  const to: [string, bigint][] = [];
  for (const k of keys) {
    if (k.length !== 85 || k[0] !== "i") continue;
    const t = read(STAKE_STORE, k);
    if (t === 0n) continue;
    const a = k.slice(1, 43);
    const b = k.slice(43);
    if (a === address) to.push([b, t]);
    if (b === address) from.push([a, t]);
  }
  const byTime = (x: [string, bigint], y: [string, bigint]) => (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0);
  return { fromAccounts: from.sort(byTime).map((x) => x[0]), toAccounts: to.sort(byTime).map((x) => x[0]) };
}

export function usageOf(a: Account, r: "ENERGY" | "BANDWIDTH"): Usage {
  const s = stakeOf(a);
  return r === "ENERGY" ? s.energy : s.net;
}
