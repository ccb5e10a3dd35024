// Mainnet-shaped background traffic, generated fast: per block a mix of USDT transfers (with real
// Transfer logs and balance changes), TRX transfers and transfers of a second token. These transactions
// skip broadcast validation and carry a placeholder signature (txID || txID || 1b), which no key made;
// everything else (raw_data, txID = sha256(raw_data), receipts, logs, state) is consistent.
import { hash } from "node:crypto";
import { addressFromPrivateKey, toHex } from "@stablegate/tron/address";
import { refBlockBytes, refBlockHash, type TxInfoCore, type TxRecord } from "./blocks.js";
import { contractAddressFor, type Chain } from "./chain.js";
import { addressTopic, encodeBool, encodeUint } from "./abi.js";
import { newAccount } from "./execute.js";
import { CREATE_ACCOUNT_FEE, ENERGY, ENERGY_PRICE_SUN, billedBytes } from "./resources.js";
import { balanceKey, type Token } from "./state.js";
import { parseUnits6, sha256Hex } from "./util.js";

export interface LoadOptions {
  blocks: number;
  txPerBlock?: number;
  usdtPerBlock?: number;
  /** Recipients of the USDT transfers (base58 or hex); random fresh addresses otherwise. */
  toAddresses?: string[];
  /** Whole USDT per transfer (decimal string); random 1..100 USDT otherwise. */
  usdtAmount?: string;
}

const SENDERS = 32;
const SENDER_TRX = 1_000_000n * 1_000_000n;
const SENDER_USDT = 1_000_000n * 1_000_000n;
const FEE_LIMIT = 100_000_000;

// ---- a protobuf writer specialised for the two transaction shapes load traffic uses ----

const TRIGGER_URL = Buffer.from("type.googleapis.com/protocol.TriggerSmartContract");
const TRANSFER_URL = Buffer.from("type.googleapis.com/protocol.TransferContract");
const scratch = Buffer.allocUnsafe(512);

function varintLen(n: number): number {
  let len = 1;
  while (n > 0x7f) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

function putVarint(pos: number, n: number): number {
  while (n > 0x7f) {
    scratch[pos++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  scratch[pos++] = n;
  return pos;
}

function putBytes(pos: number, tag: number, b: Buffer): number {
  scratch[pos++] = tag;
  pos = putVarint(pos, b.length);
  b.copy(scratch, pos);
  return pos + b.length;
}

interface Header {
  refBytes: Buffer;
  refHash: Buffer;
  expiration: number;
  timestamp: number;
}

/** Transaction.raw with one contract whose value the callback writes (valueLen bytes long). */
function rawBytes(
  h: Header,
  typeId: number,
  url: Buffer,
  valueLen: number,
  writeValue: (pos: number) => number,
  feeLimit: number,
): Buffer {
  const anyLen = 1 + varintLen(url.length) + url.length + 1 + varintLen(valueLen) + valueLen;
  const contractLen = 1 + varintLen(typeId) + 1 + varintLen(anyLen) + anyLen;
  let pos = putBytes(0, 0x0a, h.refBytes);
  pos = putBytes(pos, 0x22, h.refHash);
  scratch[pos++] = 0x40;
  pos = putVarint(pos, h.expiration);
  scratch[pos++] = 0x5a;
  pos = putVarint(pos, contractLen);
  scratch[pos++] = 0x08;
  pos = putVarint(pos, typeId);
  scratch[pos++] = 0x12;
  pos = putVarint(pos, anyLen);
  pos = putBytes(pos, 0x0a, url);
  scratch[pos++] = 0x12;
  pos = putVarint(pos, valueLen);
  pos = writeValue(pos);
  scratch[pos++] = 0x70;
  pos = putVarint(pos, h.timestamp);
  if (feeLimit) {
    scratch[pos++] = 0x90;
    scratch[pos++] = 0x01;
    pos = putVarint(pos, feeLimit);
  }
  const out = Buffer.allocUnsafe(pos);
  scratch.copy(out, 0, 0, pos);
  return out;
}

function triggerRaw(h: Header, owner: Buffer, contract: Buffer, data: Buffer): Buffer {
  const len = 2 + owner.length + 2 + contract.length + 2 + data.length;
  return rawBytes(
    h,
    31,
    TRIGGER_URL,
    len,
    (pos) => putBytes(putBytes(putBytes(pos, 0x0a, owner), 0x12, contract), 0x22, data),
    FEE_LIMIT,
  );
}

function transferRaw(h: Header, owner: Buffer, to: Buffer, amount: number): Buffer {
  const len = 2 + owner.length + 2 + to.length + 1 + varintLen(amount);
  return rawBytes(
    h,
    1,
    TRANSFER_URL,
    len,
    (pos) => {
      pos = putBytes(putBytes(pos, 0x0a, owner), 0x12, to);
      scratch[pos++] = 0x18;
      return putVarint(pos, amount);
    },
    0,
  );
}

// ---- generator ----

/** xorshift: cheap deterministic-enough randomness for amounts and fresh recipients. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

interface Party {
  hex: string;
  buf: Buffer;
}

export class LoadGenerator {
  private senders: Party[] = [];
  private token!: Token;
  private rand = rng(Date.now());
  private seq = 0;
  private faucetParty: Party | null = null;
  private readonly infos = new Map<string, TxInfoCore>();

  constructor(private readonly chain: Chain) {}

  private party(hex: string): Party {
    return { hex, buf: Buffer.from(hex, "hex") };
  }

  private setup(): void {
    if (this.senders.length) return;
    const c = this.chain;
    const address = contractAddressFor(sha256Hex("stablegate devnet load token"), c.faucet);
    this.token =
      c.state.tokens.get(address) ??
      c.deployToken(address, "Devnet Load Token", "LOAD", 18, 1_000_000_000n * 10n ** 18n, c.now());
    for (let i = 0; i < SENDERS; i++) {
      const key = sha256Hex(`stablegate devnet load sender ${i}`);
      this.senders.push(this.party(toHex(addressFromPrivateKey(key))));
    }
  }

  /** Appends `blocks` blocks of traffic; returns the numbers of the first and last. */
  run(opts: LoadOptions): { from: number; to: number; transactions: number } {
    this.setup();
    const c = this.chain;
    const perBlock = opts.txPerBlock ?? 300;
    const usdtPer = Math.min(opts.usdtPerBlock ?? 100, perBlock);
    const recipients = (opts.toAddresses ?? []).map((a) => this.party(toHex(a)));
    const fixed = opts.usdtAmount !== undefined ? parseUnits6(opts.usdtAmount) : null;
    const from = c.head.number + 1;
    let count = 0;
    for (let b = 0; b < opts.blocks; b++) {
      const head = c.head;
      const ts = c.nextTimestamp();
      const h: Header = {
        refBytes: Buffer.from(refBlockBytes(head.number), "hex"),
        refHash: Buffer.from(refBlockHash(head.id), "hex"),
        expiration: head.timestamp + 60_000,
        timestamp: ts,
      };
      for (let i = 0; i < perBlock; i++) {
        h.timestamp = ts - perBlock + i;
        const sender = this.senders[(this.seq++ + i) % SENDERS] as Party;
        if (i < usdtPer) {
          const to = recipients.length
            ? (recipients[(this.seq + i) % recipients.length] as Party)
            : this.freshParty();
          const amount = fixed ?? BigInt(1 + Math.floor(this.rand() * 100)) * 1_000_000n;
          this.tokenTransfer(h, sender, to, amount, c.usdt);
        } else if (i % 2 === 0) {
          const to = this.senders[(this.seq + i + 1) % SENDERS] as Party;
          this.trxTransfer(h, sender, to, BigInt(1 + Math.floor(this.rand() * 10)) * 1_000_000n);
        } else {
          const to =
            this.rand() < 0.5 ? this.freshParty() : (this.senders[(this.seq + i + 3) % SENDERS] as Party);
          this.tokenTransfer(
            h,
            sender,
            to,
            BigInt(1 + Math.floor(this.rand() * 1000)) * 10n ** 18n,
            this.token,
          );
        }
        count++;
      }
      c.mine(1, false);
    }
    return { from, to: c.head.number, transactions: count };
  }

  private freshParty(): Party {
    const b = Buffer.allocUnsafe(21);
    b[0] = 0x41;
    for (let i = 1; i < 21; i++) b[i] = Math.floor(this.rand() * 256);
    return { hex: b.toString("hex"), buf: b };
  }

  private push(raw: Buffer, info: TxInfoCore, transfer?: TxRecord["transfer"]): void {
    const id = hash("sha256", raw, "hex");
    const tx: TxRecord = { id, rawBuf: raw, contractRet: "SUCCESS", info, blockNumber: -1 };
    if (transfer) tx.transfer = transfer;
    this.chain.addPending(tx);
  }

  /** Receipts of one shape are shared: hundreds of thousands of identical objects would only feed the GC. */
  private shared(key: string, make: () => TxInfoCore): TxInfoCore {
    let info = this.infos.get(key);
    if (!info) {
      info = Object.freeze(make());
      this.infos.set(key, info);
    }
    return info;
  }

  /** Keeps a sender solvent by paying it from the faucet inside the same block. */
  private ensureFunds(h: Header, sender: Party, trx: bigint, token: Token | null, units: bigint): void {
    const s = this.chain.state;
    const faucet = (this.faucetParty ??= this.party(this.chain.faucet));
    const acc = s.getAccount(sender.hex);
    if (!acc || acc.balance < trx) this.trxTransfer(h, faucet, sender, SENDER_TRX);
    if (token && s.getSlot(token.evm, balanceKey(sender.hex.slice(2))) < units) {
      const topUp = token === this.chain.usdt ? SENDER_USDT : 1_000_000n * 10n ** 18n;
      this.tokenTransfer(h, faucet, sender, topUp > units ? topUp : units, token);
    }
  }

  private trxTransfer(h: Header, from: Party, to: Party, amount: bigint): void {
    const s = this.chain.state;
    if (from.hex !== this.chain.faucet) this.ensureFunds(h, from, amount + CREATE_ACCOUNT_FEE * 2n, null, 0n);
    const raw = transferRaw(h, from.buf, to.buf, Number(amount));
    const sender = s.getAccount(from.hex) ?? newAccount(from.hex, h.timestamp);
    const existing = s.getAccount(to.hex);
    const fee = existing ? 0n : CREATE_ACCOUNT_FEE + 100_000n;
    s.putAccount({ ...sender, balance: sender.balance - amount - fee, latestOperationTime: h.timestamp });
    const rcpt = existing ?? newAccount(to.hex, h.timestamp);
    s.putAccount({ ...rcpt, balance: rcpt.balance + amount });
    const bytes = billedBytes(raw.length, 1);
    this.push(
      raw,
      this.shared(`trx:${fee}:${bytes}`, () => ({
        fee,
        contractResult: "",
        energyFee: 0n,
        energyUsageTotal: 0n,
        netUsage: existing ? bytes : 0,
        netFee: existing ? 0n : 100_000n,
        logs: [],
      })),
    );
  }

  private tokenTransfer(h: Header, from: Party, to: Party, amount: bigint, token: Token): void {
    const s = this.chain.state;
    if (from.hex !== this.chain.faucet) {
      this.ensureFunds(h, from, ENERGY.transferToNewHolder * ENERGY_PRICE_SUN, token, amount);
    }
    const fromEvm = from.hex.slice(2);
    const toEvm = to.hex.slice(2);
    const data = Buffer.from("a9059cbb" + addressTopic(toEvm) + encodeUint(amount), "hex");
    const raw = triggerRaw(h, from.buf, Buffer.from(token.address, "hex"), data);
    const fromKey = balanceKey(fromEvm);
    const toKey = balanceKey(toEvm);
    const fromBal = s.getSlot(token.evm, fromKey);
    const toBal = s.getSlot(token.evm, toKey);
    const energy = toBal === 0n && fromEvm !== toEvm ? ENERGY.transferToNewHolder : ENERGY.transferToHolder;
    const fee = energy * ENERGY_PRICE_SUN;
    if (fromEvm !== toEvm) {
      s.setSlot(token.evm, fromKey, fromBal - amount);
      s.setSlot(token.evm, toKey, toBal + amount);
    }
    const acc = s.getAccount(from.hex) ?? newAccount(from.hex, h.timestamp);
    s.putAccount({ ...acc, balance: acc.balance - fee, latestOperationTime: h.timestamp });
    const bytes = billedBytes(raw.length, 1);
    const info = this.shared(`${token.evm}:${energy}:${bytes}`, () => ({
      fee,
      contractResult: encodeBool(token.symbol !== "USDT"), // mainnet's USDT returns a zero word
      contractAddress: token.address,
      energyFee: fee,
      energyUsageTotal: energy,
      netUsage: bytes,
      netFee: 0n,
      result: "SUCCESS",
      logs: [],
    }));
    this.push(raw, info, { token: token.evm, from: fromEvm, to: toEvm, amount });
  }
}
