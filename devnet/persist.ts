// Optional persistence: the whole chain as JSON (bigints as strings), written to a temporary file and
// renamed over the old one so a crash never leaves a half-written state.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { rawHexOf, type Block, type TxRecord } from "./blocks.js";
import { Chain } from "./chain.js";
import { Journal, type Account, type Token } from "./state.js";

const VERSION = 1;

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

interface Saved {
  version: number;
  faucetKey: string;
  solidifyAfter: number;
  tokenNonce: number;
  lastTimestamp: number;
  accounts: Map<string, Account>;
  slots: Map<string, Map<string, bigint>>;
  tokens: Map<string, Token>;
  usdt: string;
  blocks: (Omit<Block, "journal" | "infoJson"> & { journal: SavedJournal | null })[];
  pending: TxRecord[];
  pendingJournal: SavedJournal;
}

interface SavedJournal {
  accounts: Map<string, Account | undefined>;
  slots: Map<string, Map<string, bigint | undefined>>;
}

function strip(tx: TxRecord): TxRecord {
  // raw is derivable from the bytes; dropping it keeps the file smaller.
  const { raw: _raw, rawBuf: _buf, ...rest } = tx;
  return { ...rest, rawHex: rawHexOf(tx) };
}

export function saveChain(chain: Chain, file: string): void {
  const s = chain.state;
  const data: Saved = {
    version: VERSION,
    faucetKey: chain.faucetKey,
    solidifyAfter: chain.solidifyAfter,
    tokenNonce: chain.tokenNonce,
    lastTimestamp: chain.lastTimestamp,
    accounts: s.accounts,
    slots: s.slots,
    tokens: s.tokens,
    usdt: chain.usdt.address,
    blocks: chain.blocks.map(({ infoJson: _i, journal, ...b }) => ({
      ...b,
      txs: b.txs.map(strip),
      journal: journal ? { accounts: journal.accounts, slots: journal.slots } : null,
    })),
    pending: chain.pending.map(strip),
    pendingJournal: { accounts: s.journal.accounts, slots: s.journal.slots },
  };
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(pack(data)));
  renameSync(tmp, file);
}

function journalOf(j: SavedJournal): Journal {
  const out = new Journal();
  for (const [k, v] of j.accounts) out.accounts.set(k, v);
  for (const [k, v] of j.slots) out.slots.set(k, v);
  return out;
}

/** The chain stored in `file`, or null when there is none. Its faucet key wins over the configured one. */
export function loadChain(file: string, solidifyAfter: number): Chain | null {
  if (!existsSync(file)) return null;
  const data = unpack(JSON.parse(readFileSync(file, "utf8"))) as Saved;
  if (data.version !== VERSION)
    throw new Error(`devnet state file ${file} has unsupported version ${data.version}`);
  const chain = new Chain({ faucetKey: data.faucetKey, solidifyAfter });
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
