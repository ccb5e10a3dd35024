// World state with an undo journal. Every write records the value a key had before the current journal
// opened, so a block can be reverted (fork) and the solidified view can be read without snapshots.
import type { Usage } from "./usage.js";

export interface Account {
  /** '41…' lowercase hex. */
  address: string;
  balance: bigint;
  createTime: number;
  latestOperationTime: number;
  /** Free bandwidth points used, as of latestConsumeFreeTime (recovers linearly over 24 h). */
  freeNetUsed: number;
  latestConsumeFreeTime: number;
  /** Stake 2.0 (absent on accounts that never staked; see stake.ts). */
  stake?: AccountStake;
}

/** Stake 2.0 state of an account, all amounts in sun. Replaced, never mutated, like the account. */
export interface AccountStake {
  /** frozenV2 amounts, without what is delegated to others */
  frozenNet: bigint;
  frozenEnergy: bigint;
  frozenPower: bigint;
  /** this account's stake whose resource others use */
  delegatedNet: bigint;
  delegatedEnergy: bigint;
  /** others' stake whose resource this account uses */
  acquiredNet: bigint;
  acquiredEnergy: bigint;
  /** unfreezing stake, withdrawable from expireTime (ms) */
  unfrozen: { resource: "BANDWIDTH" | "ENERGY" | "TRON_POWER"; amount: bigint; expireTime: number }[];
  /** energy and staked-bandwidth usage (slots, see usage.ts) */
  energy: Usage;
  net: Usage;
}

export interface Token {
  /** '41…' lowercase hex. */
  address: string;
  /** 20-byte hex without 41: the form log.address and ABI words carry. */
  evm: string;
  name: string;
  symbol: string;
  decimals: number;
  /** '41…' hex of the deployer. */
  owner: string;
  createTime: number;
}

/** Contract storage of one token, keyed by slot name: see balanceKey, allowanceKey, SUPPLY_KEY. */
export type Slots = Map<string, bigint>;

/** First previous value of every key touched while the journal was open (undefined = absent). */
export class Journal {
  readonly accounts = new Map<string, Account | undefined>();
  /** token evm -> slot -> previous value */
  readonly slots = new Map<string, Map<string, bigint | undefined>>();
}

/** A holder's balance slot is the bare 20-byte hex: flat strings keep the hot map lookups cheap. */
export function balanceKey(holderEvm: string): string {
  return holderEvm;
}

export function allowanceKey(ownerEvm: string, spenderEvm: string): string {
  return "a" + ownerEvm + spenderEvm;
}

export const SUPPLY_KEY = "totalSupply";

export class State {
  readonly accounts = new Map<string, Account>();
  /** Contract storage of every token (token evm -> slots). */
  readonly slots = new Map<string, Slots>();
  /** Token contracts are deployed by the operator, outside blocks, so they are never reverted. */
  readonly tokens = new Map<string, Token>();
  journal = new Journal();

  getAccount(address: string): Account | undefined {
    return this.accounts.get(address);
  }

  /** Accounts are replaced, never mutated in place, so journals can keep the old object. */
  putAccount(account: Account): void {
    const j = this.journal.accounts;
    if (!j.has(account.address)) j.set(account.address, this.accounts.get(account.address));
    this.accounts.set(account.address, account);
  }

  tokenSlots(tokenEvm: string): Slots {
    let s = this.slots.get(tokenEvm);
    if (!s) {
      s = new Map();
      this.slots.set(tokenEvm, s);
    }
    return s;
  }

  getSlot(tokenEvm: string, key: string): bigint {
    return this.slots.get(tokenEvm)?.get(key) ?? 0n;
  }

  setSlot(tokenEvm: string, key: string, value: bigint): void {
    const slots = this.tokenSlots(tokenEvm);
    let j = this.journal.slots.get(tokenEvm);
    if (!j) {
      j = new Map();
      this.journal.slots.set(tokenEvm, j);
    }
    if (!j.has(key)) j.set(key, slots.get(key));
    if (value === 0n) slots.delete(key);
    else slots.set(key, value);
  }

  /** Opens a fresh journal and returns the one that was open. */
  takeJournal(): Journal {
    const j = this.journal;
    this.journal = new Journal();
    return j;
  }

  /** Restores every key the journal touched to its value before the journal opened. */
  revert(j: Journal): void {
    for (const [k, v] of j.accounts) {
      if (v === undefined) this.accounts.delete(k);
      else this.accounts.set(k, v);
    }
    for (const [token, old] of j.slots) {
      const slots = this.tokenSlots(token);
      for (const [k, v] of old) {
        if (v === undefined) slots.delete(k);
        else slots.set(k, v);
      }
    }
  }
}
