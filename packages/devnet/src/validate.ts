// Broadcast checks in java-tron's order: signature size, expiration against the next slot, signature,
// TAPOS, size and expiration window, duplicates. Contract checks follow in execute.ts.
import { hexToBase58, toHex } from "@stablegate/tron/address";
import { decodeRawData, encodeRawData, type RawDataJson } from "@stablegate/tron/protobuf";
import { recoverSigner } from "@stablegate/tron/sign";
import { refBlockHash, type Block } from "./blocks.js";
import { Refusal } from "./execute.js";
import { bytesToHex, sha256Hex } from "./util.js";

export const BLOCK_INTERVAL_MS = 3000;
const MAX_EXPIRATION_MS = 24 * 3600 * 1000;
const MAX_TX_BYTES = 500 * 1024;

export interface ParsedTx {
  id: string;
  rawHex: string;
  rawBytes: Uint8Array;
  /** raw_data with hex addresses, whatever form the client sent. */
  raw: RawDataJson;
  signatures: string[];
}

/** Builds the protobuf bytes from raw_data (as java-tron does) and cross-checks txID and raw_data_hex. */
export function parseTransaction(body: Record<string, unknown>): ParsedTx {
  const rawJson = body.raw_data as RawDataJson | undefined;
  if (!rawJson || typeof rawJson !== "object" || !Array.isArray(rawJson.contract)) {
    throw new Refusal("OTHER_ERROR", "other error : raw_data is missing");
  }
  let rawBytes: Uint8Array;
  let raw: RawDataJson;
  try {
    rawBytes = encodeRawData(rawJson);
    raw = decodeRawData(rawBytes);
  } catch (e) {
    throw new Refusal("OTHER_ERROR", "other error : " + (e as Error).message);
  }
  const rawHex = bytesToHex(rawBytes);
  const id = sha256Hex(rawBytes);
  // java-tron ignores these two fields; a client whose copies disagree with raw_data has a bug worth surfacing.
  if (typeof body.raw_data_hex === "string" && body.raw_data_hex.toLowerCase() !== rawHex) {
    throw new Refusal("OTHER_ERROR", "other error : raw_data_hex does not match raw_data");
  }
  if (typeof body.txID === "string" && body.txID.toLowerCase() !== id) {
    throw new Refusal("OTHER_ERROR", "other error : txID is not sha256(raw_data)");
  }
  const sigs = Array.isArray(body.signature) ? body.signature : [];
  const signatures = sigs.map((s) => String(s).replace(/^0x/, "").toLowerCase());
  return { id, rawHex, rawBytes, raw, signatures };
}

export function ownerOf(raw: RawDataJson): string {
  const c = raw.contract[0];
  if (!c) throw new Refusal("CONTRACT_VALIDATE_ERROR", "Contract validate error : contract is missing");
  return toHex(c.parameter.value.owner_address);
}

export interface ChainView {
  head: Block;
  blockByNum(n: number): Block | undefined;
  hasTx(id: string): boolean;
}

export function validateBroadcast(tx: ParsedTx, chain: ChainView): void {
  for (const s of tx.signatures) {
    if (s.length !== 130) {
      throw new Refusal("SIGERROR", `Validate signature error: Signature size is ${s.length / 2}`);
    }
  }
  const head = chain.head;
  if (tx.raw.expiration < head.timestamp + BLOCK_INTERVAL_MS) {
    throw new Refusal("TRANSACTION_EXPIRATION_ERROR", "Transaction expired");
  }
  validateSignature(tx);
  validateTapos(tx.raw, chain);
  if (tx.rawBytes.length + tx.signatures.length * 67 > MAX_TX_BYTES) {
    throw new Refusal("TOO_BIG_TRANSACTION_ERROR", "Transaction size is too big.");
  }
  if (tx.raw.expiration > head.timestamp + MAX_EXPIRATION_MS) {
    throw new Refusal("TRANSACTION_EXPIRATION_ERROR", "Transaction expired");
  }
  if (chain.hasTx(tx.id)) throw new Refusal("DUP_TRANSACTION_ERROR", "Dup transaction.");
}

/** The owner permission of every devnet account is its own key with threshold 1. */
function validateSignature(tx: ParsedTx): void {
  if (tx.signatures.length === 0)
    throw new Refusal("SIGERROR", "Validate signature error: miss sig or contract");
  const owner = hexToBase58(ownerOf(tx.raw));
  const seen = new Set<string>();
  let ok = false;
  for (const sig of tx.signatures) {
    let signer: string;
    try {
      signer = recoverSigner(tx.id, sig);
    } catch (e) {
      throw new Refusal("SIGERROR", "Validate signature error: " + (e as Error).message);
    }
    if (signer !== owner) {
      throw new Refusal(
        "SIGERROR",
        `Validate signature error: ${sig} is signed by ${signer} but it is not contained of permission.`,
      );
    }
    if (seen.has(signer))
      throw new Refusal("SIGERROR", `Validate signature error: ${signer} has signed twice!`);
    seen.add(signer);
    ok = true;
  }
  if (!ok) throw new Refusal("SIGERROR", "Validate signature error: sig error");
}

/** ref_block_bytes are the low 16 bits of a recent block number; ref_block_hash bytes 8..16 of its id. */
function validateTapos(raw: RawDataJson, chain: ChainView): void {
  const refBytes = raw.ref_block_bytes ?? "";
  const refHash = (raw.ref_block_hash ?? "").toLowerCase();
  if (!/^[0-9a-fA-F]{4}$/.test(refBytes)) throw new Refusal("TAPOS_ERROR", "Tapos check error.");
  const low = parseInt(refBytes, 16);
  const head = chain.head.number;
  // java-tron keeps the last 65536 block hashes keyed by these 16 bits: the newest block wins.
  let n = head - ((head - low) & 0xffff);
  if (n < 0) n = -1;
  const block = n >= 0 ? chain.blockByNum(n) : undefined;
  if (!block || refBlockHash(block.id) !== refHash) throw new Refusal("TAPOS_ERROR", "Tapos check error.");
}
