// Optional persistence as an append-only log, so a save costs O(new blocks) however long the chain.
// The state file is NDJSON (bigints, Maps and undefined tagged, see pack): a snapshot line written
// when the file is created (genesis, or a migrated version-1 file), then one line per event in the
// order it happened:
//   block   the block with its transactions, and the new value of every account and token slot it
//           changed (its undo journal's keys), so replaying rebuilds the state and the undo journals
//   fork    the depth dropped, and the restored value of every key the revert touched
//   token   a token deployed outside blocks (its slots are written directly, not journaled)
//   pending the pending pool and its state changes, written on close (broadcast but not yet mined)
// Lines are buffered and appended together; fsync runs on close and at most every SYNC_EVERY_MS, so a
// crash loses at most the unsynced tail, and a torn last line is ignored (and cut off) at load.
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { rawHexOf, type Block, type TxRecord } from "./blocks.js";
import { Chain } from "./chain.js";
import type { StakeParams } from "./stake.js";
import { Journal, type Account, type State, type Token } from "./state.js";

const VERSION = 2;
/** Version 1 kept the whole chain in one JSON document; it is still read, then rewritten. */
const VERSION_WHOLE_FILE = 1;
const SYNC_EVERY_MS = 10_000;

/** Tags bigints, Maps and undefined values so JSON can carry them. */
function pack(v: unknown): unknown {
  if (typeof v === "bigint") return { $n: v.toString() };
  if (v === undefined) return { $u: 1 };
  if (v instanceof Map) return { $m: [...v].map(([k, x]) => [k, pack(x)]) };
  if (Array.isArray(v)) return v.map(pack);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = pack(x);
    return out;
  }
  return v;
}

function unpack(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unpack);
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (typeof o.$n === "string") return BigInt(o.$n);
    if (o.$u === 1) return undefined;
    if (Array.isArray(o.$m)) return new Map((o.$m as [string, unknown][]).map(([k, x]) => [k, unpack(x)]));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = unpack(x);
    return out;
  }
  return v;
}

interface SavedJournal {
  accounts: Map<string, Account | undefined>;
  slots: Map<string, Map<string, bigint | undefined>>;
}

type StoredBlock = Omit<Block, "journal" | "infoJson">;

interface Snapshot {
  version: number;
  faucetKey: string;
  solidifyAfter: number;
  tokenNonce: number;
  lastTimestamp: number;
  accounts: Map<string, Account>;
  slots: Map<string, Map<string, bigint>>;
  tokens: Map<string, Token>;
  usdt: string;
  blocks: (StoredBlock & { journal: SavedJournal | null })[];
  pending: TxRecord[];
  pendingJournal: SavedJournal;
}

/** Values of the keys a journal touched, as they are in the state now (undefined = absent). */
interface Values {
  accounts: [string, Account | undefined][];
  slots: [string, [string, bigint | undefined][]][];
}

type ChainEvent =
  | ({ t: "block"; block: StoredBlock } & Values)
  | ({ t: "fork"; depth: number } & Values)
  | { t: "token"; token: Token; supply: bigint; nonce: number }
  | ({ t: "pending"; txs: TxRecord[] } & Values);

function strip(tx: TxRecord): TxRecord {
  // raw is derivable from the bytes; dropping it keeps the file smaller.
  const { raw: _raw, rawBuf: _buf, ...rest } = tx;
  return { ...rest, rawHex: rawHexOf(tx) };
}

function storedBlock(b: Block): StoredBlock {
  const { infoJson: _i, journal: _j, ...rest } = b;
  return { ...rest, txs: b.txs.map(strip) };
}

function valuesOf(state: State, journals: Journal[]): Values {
  const accounts = new Set<string>();
  const slots = new Map<string, Set<string>>();
  for (const j of journals) {
    for (const k of j.accounts.keys()) accounts.add(k);
    for (const [token, keys] of j.slots) {
      const set = slots.get(token) ?? new Set<string>();
      for (const k of keys.keys()) set.add(k);
      slots.set(token, set);
    }
  }
  return {
    accounts: [...accounts].map((k) => [k, state.accounts.get(k)]),
    slots: [...slots].map(([token, keys]) => [
      token,
      [...keys].map((k) => [k, state.slots.get(token)?.get(k)]),
    ]),
  };
}

/** Sets the values through the state's journal (block and pending replays rebuild undo journals). */
function applyJournaled(state: State, v: Values): void {
  for (const [k, account] of v.accounts) {
    if (account) state.putAccount(account);
    else {
      if (!state.journal.accounts.has(k)) state.journal.accounts.set(k, state.accounts.get(k));
      state.accounts.delete(k);
    }
  }
  for (const [token, keys] of v.slots) for (const [k, x] of keys) state.setSlot(token, k, x ?? 0n);
}

/** Sets the values directly (a fork's revert is not itself journaled). */
function applyDirect(state: State, v: Values): void {
  for (const [k, account] of v.accounts) {
    if (account) state.accounts.set(k, account);
    else state.accounts.delete(k);
  }
  for (const [token, keys] of v.slots) {
    const slots = state.tokenSlots(token);
    for (const [k, x] of keys) {
      if (x === undefined || x === 0n) slots.delete(k);
      else slots.set(k, x);
    }
  }
}

function line(v: unknown): string {
  return JSON.stringify(pack(v)) + "\n";
}

/** Writes a new state file holding only a snapshot of `chain` (temporary file, fsync, rename). */
export function writeSnapshot(chain: Chain, file: string): void {
  const s = chain.state;
  const data: Snapshot & { t: "snapshot" } = {
    t: "snapshot",
    version: VERSION,
    faucetKey: chain.faucetKey,
    solidifyAfter: chain.solidifyAfter,
    tokenNonce: chain.tokenNonce,
    lastTimestamp: chain.lastTimestamp,
    accounts: s.accounts,
    slots: s.slots,
    tokens: s.tokens,
    usdt: chain.usdt.address,
    blocks: chain.blocks.map((b) => ({
      ...storedBlock(b),
      journal: b.journal ? { accounts: b.journal.accounts, slots: b.journal.slots } : null,
    })),
    pending: chain.pending.map(strip),
    pendingJournal: { accounts: s.journal.accounts, slots: s.journal.slots },
  };
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, "w");
  try {
    writeSync(fd, line(data));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

function journalOf(j: SavedJournal): Journal {
  const out = new Journal();
  for (const [k, v] of j.accounts) out.accounts.set(k, v);
  for (const [k, v] of j.slots) out.slots.set(k, v);
  return out;
}

function fromSnapshot(
  data: Snapshot,
  file: string,
  solidifyAfter: number,
  stake?: Partial<StakeParams>,
): Chain {
  if (data.version !== VERSION && data.version !== VERSION_WHOLE_FILE)
    throw new Error(`devnet state file ${file} has unsupported version ${data.version}`);
  const chain = new Chain({ faucetKey: data.faucetKey, solidifyAfter, stake });
  const s = chain.state;
  for (const [k, v] of data.accounts) s.accounts.set(k, v);
  for (const [k, v] of data.slots) s.slots.set(k, v);
  for (const [k, v] of data.tokens) s.tokens.set(k, v);
  chain.usdt = s.tokens.get(data.usdt) as Token;
  chain.tokenNonce = data.tokenNonce;
  chain.lastTimestamp = data.lastTimestamp;
  for (const b of data.blocks) {
    const block: Block = { ...b, journal: b.journal ? journalOf(b.journal) : null };
    chain.blocks.push(block);
    for (const tx of block.txs) chain.txIndex.set(tx.id, tx);
  }
  for (const tx of data.pending) chain.addPending(tx);
  s.journal = journalOf(data.pendingJournal);
  return chain;
}

function replay(chain: Chain, e: ChainEvent): void {
  const s = chain.state;
  switch (e.t) {
    case "block":
      applyJournaled(s, e);
      chain.restoreBlock({ ...e.block, journal: s.takeJournal() });
      return;
    case "fork":
      chain.dropBlocks(e.depth);
      applyDirect(s, e);
      return;
    case "token":
      chain.deployToken(
        e.token.address,
        e.token.name,
        e.token.symbol,
        e.token.decimals,
        e.supply,
        e.token.createTime,
      );
      chain.tokenNonce = e.nonce;
      return;
    case "pending":
      for (const tx of chain.pending) chain.txIndex.delete(tx.id);
      chain.pending = [];
      for (const tx of e.txs) chain.addPending(tx);
      applyJournaled(s, e);
      return;
  }
}

export interface LoadedChain {
  chain: Chain;
  /** The file must be rewritten as a snapshot before appending (it is in the version-1 format). */
  rewrite: boolean;
}

/**
 * The chain stored in `file`, or null when there is none. Its faucet key wins over the configured one.
 * A torn last line (a crash mid-append) is ignored and cut off, so later appends start on a clean line.
 */
export function loadChain(
  file: string,
  solidifyAfter: number,
  stake?: Partial<StakeParams>,
): LoadedChain | null {
  if (!existsSync(file)) return null;
  const buf = readFileSync(file);
  if (buf.length === 0) return null;
  let chain: Chain | undefined;
  let rewrite = false;
  let pos = 0;
  let lineNo = 0;
  while (pos < buf.length) {
    const nl = buf.indexOf(10, pos);
    const end = nl < 0 ? buf.length : nl;
    const text = buf.toString("utf8", pos, end);
    lineNo += 1;
    let value: unknown;
    try {
      value = unpack(JSON.parse(text));
    } catch (error) {
      const last = nl < 0 || nl === buf.length - 1;
      // A version-1 file is one JSON document without a final newline: never torn (it was renamed in).
      if (!last || lineNo === 1) {
        throw new Error(`devnet state file ${file}: line ${lineNo} is not JSON`, { cause: error });
      }
      truncateSync(file, pos);
      break;
    }
    if (!chain) {
      const snapshot = value as Snapshot & { t?: string };
      chain = fromSnapshot(snapshot, file, solidifyAfter, stake);
      rewrite = snapshot.version === VERSION_WHOLE_FILE;
    } else {
      replay(chain, value as ChainEvent);
    }
    if (nl < 0) {
      // A complete record without its newline: keep it, and end the file with one.
      if (!rewrite) writeFileSync(file, "\n", { flag: "a" });
      break;
    }
    pos = nl + 1;
  }
  return chain ? { chain, rewrite } : null;
}

/**
 * Appends the chain's events to `file` as they happen. Lines are queued and written together once
 * the current burst of work is over (mining 1,000 blocks costs one write); fsync at most every
 * SYNC_EVERY_MS and on close.
 */
export class ChainLog {
  private fd: number;
  private queue: string[] = [];
  private scheduled = false;
  private syncedAt = Date.now();
  private failed = false;
  private closed = false;

  constructor(
    private readonly chain: Chain,
    private readonly file: string,
    private readonly onError: (message: string) => void,
  ) {
    this.fd = openSync(file, "a");
    chain.listener = {
      block: (b, changes) =>
        this.push({ t: "block", block: storedBlock(b), ...valuesOf(chain.state, [changes]) }),
      fork: (depth, reverted) => this.push({ t: "fork", depth, ...valuesOf(chain.state, reverted) }),
      token: (token, supply) => this.push({ t: "token", token, supply, nonce: chain.tokenNonce }),
    };
  }

  private push(e: ChainEvent): void {
    if (this.failed) return;
    this.queue.push(line(e));
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush(false);
    });
  }

  /** Writes what is queued; fsyncs when `sync` or when the last fsync is old. */
  flush(sync: boolean): void {
    if (this.failed || this.closed) return;
    try {
      if (this.queue.length > 0) {
        const data = this.queue.join("");
        this.queue = [];
        writeSync(this.fd, data);
      }
      if (sync || Date.now() - this.syncedAt > SYNC_EVERY_MS) {
        fdatasyncSync(this.fd);
        this.syncedAt = Date.now();
      }
    } catch (error) {
      // A partly written line would corrupt everything appended after it: stop logging.
      this.failed = true;
      this.queue = [];
      this.onError(
        `devnet: writing ${this.file} failed, the chain is no longer saved: ${(error as Error).message}`,
      );
    }
  }

  /** Records the pending pool, writes everything and closes the file. */
  close(): void {
    const c = this.chain;
    c.listener = null;
    if (c.pending.length > 0 || c.state.journal.accounts.size > 0 || c.state.journal.slots.size > 0) {
      this.push({ t: "pending", txs: c.pending.map(strip), ...valuesOf(c.state, [c.state.journal]) });
    }
    this.flush(true);
    this.closed = true;
    closeSync(this.fd);
  }
}
