// The chain: blocks, the pending pool, the state and the transaction index. Transactions run against the
// state when they are broadcast (as java-tron's pending session does) and land in the next block.
import { addressFromPrivateKey, hexToBase58, toHex } from "@stablegate/tron/address";
import { makeBlock, type Block, type TxRecord } from "./blocks.js";
import { executeTransaction, newAccount, Refusal } from "./execute.js";
import { billedBytes } from "./resources.js";
import { DEFAULT_STAKE_PARAMS, type ExecEnv, type StakeParams } from "./stake.js";
import { slotOf } from "./usage.js";
import { fundFromFaucet } from "./faucet.js";
import type { Clock } from "./json.js";
import { Journal, SUPPLY_KEY, State, balanceKey, type Account, type Token } from "./state.js";
import { parseTransaction, validateBroadcast, type ParsedTx } from "./validate.js";
import { hexToBytes, keccakHex, sha256Hex } from "./util.js";

export const DEFAULT_FAUCET_KEY = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
/** Block producer key: only signs headers, holds nothing. */
const WITNESS_KEY = sha256Hex("stablegate devnet witness");
const GENESIS_TRX = 1_000_000_000n * 1_000_000n;
const GENESIS_USDT = 1_000_000_000n * 1_000_000n;

/** What persistence (persist.ts) needs to hear to log the chain as it grows. */
export interface ChainListener {
  /** A block was appended; `changes` is its undo journal (the keys the block changed). */
  block(b: Block, changes: Journal): void;
  /** `depth` blocks and the pending pool were dropped; `reverted` touched every key they restored. */
  fork(depth: number, reverted: Journal[]): void;
  /** A token was deployed outside blocks (its slots are written directly, not journaled). */
  token(t: Token, supply: bigint): void;
}

export interface ChainOptions {
  faucetKey?: string;
  solidifyAfter?: number;
  now?: () => number;
  /** Resource parameters; unset ones take mainnet's values (DEFAULT_STAKE_PARAMS). */
  stake?: Partial<StakeParams>;
}

/** java-tron's contract address: keccak256(deploy txID || owner)[12..], with the 41 prefix. */
export function contractAddressFor(deployTxId: string, ownerHex: string): string {
  return "41" + keccakHex(hexToBytes(deployTxId + ownerHex)).slice(24);
}

export class Chain {
  readonly state = new State();
  readonly blocks: Block[] = [];
  pending: TxRecord[] = [];
  readonly txIndex = new Map<string, TxRecord>();
  readonly faucetKey: string;
  /** '41…' hex. */
  readonly faucet: string;
  readonly witnessAddress: string;
  solidifyAfter: number;
  usdt!: Token;
  tokenNonce = 0;
  lastTimestamp = 0;
  /** The chain's clock: the wall clock (or the one given) plus clockOffsetMs. */
  readonly now: () => number;
  /** Moved forward by advanceClock, so tests can let 24 h of energy recovery pass. */
  clockOffsetMs = 0;
  readonly params: StakeParams;
  /** Told of every change to blocks and tokens (persistence hooks in). */
  listener: ChainListener | null = null;

  constructor(opts: ChainOptions = {}) {
    this.faucetKey = (opts.faucetKey ?? DEFAULT_FAUCET_KEY).replace(/^0x/, "").toLowerCase();
    this.faucet = toHex(addressFromPrivateKey(this.faucetKey));
    this.witnessAddress = toHex(addressFromPrivateKey(WITNESS_KEY));
    this.solidifyAfter = opts.solidifyAfter ?? 19;
    const base = opts.now ?? Date.now;
    this.now = () => base() + this.clockOffsetMs;
    this.params = { ...DEFAULT_STAKE_PARAMS, ...opts.stake };
  }

  /** What transactions execute against: the head block's time (java-tron's latest block header). */
  env(): ExecEnv {
    const { now, slot } = this.clock();
    return { now, slot, params: this.params };
  }

  /** The head's (or the solidified block's) time in ms and in slots since genesis. */
  clock(solid = false): Clock {
    const b = solid ? (this.blockByNum(this.solidifiedNumber) ?? this.head) : this.head;
    const genesisMs = this.blocks[0]?.timestamp ?? b.timestamp;
    return { now: b.timestamp, slot: slotOf(b.timestamp, genesisMs), genesisMs };
  }

  /** Moves the clock forward and mines a block, so the head (and resource recovery) sees the new time. */
  advanceClock(ms: number): Block {
    this.clockOffsetMs += ms;
    return this.mine(1)[0] as Block;
  }

  /** Slot keys of a store as of a view: the current ones plus those newer blocks changed. */
  slotKeys(store: string, solid: boolean): Set<string> {
    const keys = new Set(this.state.slots.get(store)?.keys() ?? []);
    if (solid)
      for (const j of this.unsolidJournals()) for (const k of j.slots.get(store)?.keys() ?? []) keys.add(k);
    return keys;
  }

  /** Genesis: the faucet holds 1e9 TRX and the whole USDT supply; block 1 follows so TAPOS has a parent. */
  initGenesis(): void {
    const t = this.now();
    this.state.accounts.set(this.faucet, { ...newAccount(this.faucet, t), balance: GENESIS_TRX });
    const deployTx = sha256Hex("stablegate devnet genesis: deploy TetherToken (USDT)");
    this.usdt = this.deployToken(
      contractAddressFor(deployTx, this.faucet),
      "Tether USD",
      "USDT",
      6,
      GENESIS_USDT,
      t,
    );
    this.state.takeJournal();
    this.lastTimestamp = t;
    this.blocks.push(this.produce(0, "0".repeat(64), t, [], null));
    this.mine(1);
  }

  deployToken(
    address: string,
    name: string,
    symbol: string,
    decimals: number,
    supply: bigint,
    t: number,
  ): Token {
    const token: Token = {
      address,
      evm: address.slice(2),
      name,
      symbol,
      decimals,
      owner: this.faucet,
      createTime: t,
    };
    this.state.tokens.set(address, token);
    const slots = this.state.tokenSlots(token.evm);
    slots.set(SUPPLY_KEY, supply);
    slots.set(balanceKey(this.faucet.slice(2)), supply);
    this.listener?.token(token, supply);
    return token;
  }

  /** A new TRC20 owned by the faucet, which receives 1e9 whole tokens. */
  createToken(name: string, symbol: string, decimals: number): Token {
    const nonce = ++this.tokenNonce;
    const deployTx = sha256Hex(`stablegate devnet token ${nonce}: ${name} (${symbol})`);
    const supply = 1_000_000_000n * 10n ** BigInt(decimals);
    return this.deployToken(
      contractAddressFor(deployTx, this.faucet),
      name,
      symbol,
      decimals,
      supply,
      this.now(),
    );
  }

  get head(): Block {
    return this.blocks[this.blocks.length - 1] as Block;
  }

  get solidifiedNumber(): number {
    return Math.max(0, this.head.number - this.solidifyAfter);
  }

  blockByNum(n: number): Block | undefined {
    return Number.isInteger(n) && n >= 0 ? this.blocks[n] : undefined;
  }

  blockById(id: string): Block | undefined {
    const h = id.toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(h)) return undefined;
    const b = this.blocks[parseInt(h.slice(0, 16), 16)];
    return b && b.id === h ? b : undefined;
  }

  /** A transaction in a block (pending ones are not found, as on java-tron). */
  txInBlock(id: string, solidOnly = false): TxRecord | undefined {
    const tx = this.txIndex.get(id.toLowerCase());
    if (!tx || tx.blockNumber < 0) return undefined;
    if (solidOnly && tx.blockNumber > this.solidifiedNumber) return undefined;
    return tx;
  }

  hasTx(id: string): boolean {
    return this.txIndex.has(id);
  }

  /** broadcasttransaction: validates, executes against the pending state, queues for the next block. */
  broadcast(body: Record<string, unknown>): ParsedTx {
    const tx = parseTransaction(body);
    let done: ReturnType<typeof executeTransaction>;
    try {
      validateBroadcast(tx, this);
      const bytes = billedBytes(tx.rawBytes.length, tx.signatures.length);
      done = executeTransaction(this.state, tx.raw, bytes, this.env());
    } catch (e) {
      if (e instanceof Refusal) e.txid = tx.id;
      throw e;
    }
    const record: TxRecord = {
      id: tx.id,
      rawHex: tx.rawHex,
      raw: tx.raw,
      signatures: tx.signatures,
      contractRet: done.contractRet,
      info: done.info,
      blockNumber: -1,
    };
    this.addPending(record);
    return tx;
  }

  addPending(record: TxRecord): void {
    this.pending.push(record);
    this.txIndex.set(record.id, record);
  }

  private produce(
    num: number,
    parent: string,
    ts: number,
    txs: TxRecord[],
    journal: Journal | null,
    signed = true,
  ): Block {
    return makeBlock({
      number: num,
      parentHash: parent,
      timestamp: ts,
      txs,
      journal,
      witnessKey: signed ? WITNESS_KEY : null,
      witnessAddress: this.witnessAddress,
    });
  }

  nextTimestamp(): number {
    // Strictly increasing even across forks, so a replacement block never repeats a dropped block's hash.
    this.lastTimestamp = Math.max(this.now(), this.lastTimestamp + 1);
    return this.lastTimestamp;
  }

  mine(n = 1, signed = true): Block[] {
    const out: Block[] = [];
    for (let i = 0; i < n; i++) {
      const head = this.head;
      const txs = this.pending;
      this.pending = [];
      const ts = this.nextTimestamp();
      const changes = this.state.takeJournal();
      const block = this.produce(head.number + 1, head.id, ts, txs, changes, signed);
      this.blocks.push(block);
      out.push(block);
      this.prune();
      this.listener?.block(block, changes);
    }
    return out;
  }

  /** Replays a stored block (persist.ts): its state changes are already applied and journaled. */
  restoreBlock(block: Block): void {
    for (const tx of this.pending) if (tx.blockNumber < 0) this.txIndex.delete(tx.id);
    this.pending = [];
    for (const tx of block.txs) {
      tx.blockNumber = block.number;
      this.txIndex.set(tx.id, tx);
    }
    this.blocks.push(block);
    this.lastTimestamp = Math.max(this.lastTimestamp, block.timestamp);
    this.prune();
  }

  /** Replays a stored fork (persist.ts): drops blocks and the pending pool; the caller restores state. */
  dropBlocks(depth: number): void {
    for (const tx of this.pending) this.txIndex.delete(tx.id);
    this.pending = [];
    this.state.journal = new Journal();
    for (let i = 0; i < depth && this.blocks.length > 1; i++) {
      const b = this.blocks.pop() as Block;
      for (const tx of b.txs) this.txIndex.delete(tx.id);
    }
  }

  /** Solidified blocks can never be reorganised, so their undo logs are dropped. */
  private prune(): void {
    const solid = this.solidifiedNumber;
    for (let n = solid; n >= 0; n--) {
      const b = this.blocks[n];
      if (!b || b.journal === null) break;
      b.journal = null;
    }
  }

  /**
   * Drops the newest `depth` blocks and the pending pool (state reverted, their transactions forgotten,
   * never re-included) and mines `depth` empty blocks in their place.
   */
  fork(depth: number): Block[] {
    if (!Number.isInteger(depth) || depth < 1)
      throw new Refusal("OTHER_ERROR", "depth must be a positive integer");
    if (this.head.number - depth < this.solidifiedNumber) {
      throw new Refusal(
        "OTHER_ERROR",
        `depth ${depth} reaches the solidified block ${this.solidifiedNumber} (head ${this.head.number})`,
      );
    }
    for (let n = this.head.number - depth + 1; n <= this.head.number; n++) {
      if (!this.blocks[n]?.journal)
        throw new Refusal("OTHER_ERROR", `block ${n} can no longer be reorganised`);
    }
    const reverted = [this.state.takeJournal()];
    this.state.revert(reverted[0] as Journal);
    for (const tx of this.pending) this.txIndex.delete(tx.id);
    this.pending = [];
    for (let i = 0; i < depth; i++) {
      const b = this.blocks.pop() as Block;
      if (b.journal) {
        this.state.revert(b.journal);
        reverted.push(b.journal);
      }
      for (const tx of b.txs) this.txIndex.delete(tx.id);
    }
    this.listener?.fork(depth, reverted);
    return this.mine(depth);
  }

  /** Journals newer than the solidified block, oldest first, ending with the pending one. */
  private unsolidJournals(): Journal[] {
    const out: Journal[] = [];
    for (let n = this.solidifiedNumber + 1; n <= this.head.number; n++) {
      const j = this.blocks[n]?.journal;
      if (j) out.push(j);
    }
    out.push(this.state.journal);
    return out;
  }

  /** The account as of the head (including pending) or as of the solidified block. */
  account(addressHex: string, solid: boolean): Account | undefined {
    if (solid) {
      for (const j of this.unsolidJournals())
        if (j.accounts.has(addressHex)) return j.accounts.get(addressHex);
    }
    return this.state.getAccount(addressHex);
  }

  slotReader(solid: boolean): (tokenEvm: string, key: string) => bigint {
    if (!solid) return (t, k) => this.state.getSlot(t, k);
    const journals = this.unsolidJournals();
    return (t, k) => {
      for (const j of journals) {
        const old = j.slots.get(t);
        if (old?.has(k)) return old.get(k) ?? 0n;
      }
      return this.state.getSlot(t, k);
    };
  }

  /** Unique per faucet transaction, so two identical fundings in one millisecond get distinct ids. */
  txTimestampSeq = 0;

  /** Sends TRX and/or a token from the faucet through real transactions; returns their ids. */
  fund(toHex41: string, trxSun: bigint, tokenUnits: bigint, token: Token = this.usdt): string[] {
    return fundFromFaucet(this, toHex41, trxSun, tokenUnits, token);
  }

  base58(hex41: string): string {
    return hexToBase58(hex41);
  }
}
