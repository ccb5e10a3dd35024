// java-tron's JSON shapes: default (zero/empty) fields omitted, int64 as numbers, bytes as hex, and
// addresses as '41…' hex unless the request asked for visible=true (base58).
import { hexToBase58 } from "../src/tron/address.js";
import { decodeRawDataHex, type ContractJson, type RawDataJson } from "../src/tron/protobuf.js";
import { BLOCK_VERSION, logsOf, rawHexOf, signaturesOf, type Block, type TxRecord } from "./blocks.js";
import type { Account, Token } from "./state.js";
import { TRC20_ABI } from "./abi.js";
import { freeNetUsedAt } from "./resources.js";
import { utf8ToHex } from "./util.js";

type Json = Record<string, unknown>;

export function addr(hex41: string, visible: boolean): string {
  return visible ? hexToBase58(hex41) : hex41;
}

function contractJson(c: ContractJson, visible: boolean): Json {
  const v = c.parameter.value as unknown as Record<string, unknown>;
  const value: Json = {};
  // java-tron's key order: data/amount first, then the addresses.
  if (c.type === "TransferContract") {
    value.amount = v.amount;
    value.owner_address = addr(String(v.owner_address), visible);
    value.to_address = addr(String(v.to_address), visible);
  } else {
    if (v.data) value.data = v.data;
    value.owner_address = addr(String(v.owner_address), visible);
    value.contract_address = addr(String(v.contract_address), visible);
    if (v.call_value) value.call_value = v.call_value;
    if (v.call_token_value) value.call_token_value = v.call_token_value;
    if (v.token_id) value.token_id = v.token_id;
  }
  const out: Json = { parameter: { value, type_url: c.parameter.type_url }, type: c.type };
  if (c.Permission_id) out.Permission_id = c.Permission_id;
  return out;
}

export function rawDataJson(raw: RawDataJson, visible: boolean): Json {
  const out: Json = { contract: raw.contract.map((c) => contractJson(c, visible)) };
  out.ref_block_bytes = raw.ref_block_bytes;
  out.ref_block_hash = raw.ref_block_hash;
  out.expiration = raw.expiration;
  if (raw.data) out.data = raw.data;
  if (raw.fee_limit) out.fee_limit = raw.fee_limit;
  if (raw.timestamp) out.timestamp = raw.timestamp;
  return out;
}

export function rawOf(tx: TxRecord): RawDataJson {
  // Not cached: generated traffic would otherwise keep hundreds of thousands of decoded objects alive.
  return tx.raw ?? decodeRawDataHex(rawHexOf(tx));
}

/** A transaction as blocks and gettransactionbyid show it. */
export function txJson(tx: TxRecord, visible: boolean): Json {
  return {
    ret: [{ contractRet: tx.contractRet }],
    signature: signaturesOf(tx),
    txID: tx.id,
    raw_data: rawDataJson(rawOf(tx), visible),
    raw_data_hex: rawHexOf(tx),
  };
}

/** The reply of createtransaction / triggersmartcontract: an unsigned transaction. */
export function unsignedTxJson(id: string, raw: RawDataJson, rawHex: string, visible: boolean): Json {
  return { visible, txID: id, raw_data: rawDataJson(raw, visible), raw_data_hex: rawHex };
}

export function blockJson(b: Block, visible: boolean, withTxs: boolean): Json {
  const raw: Json = {};
  if (b.number) raw.number = b.number;
  raw.txTrieRoot = b.txTrieRoot;
  raw.witness_address = addr(b.witnessAddress, visible);
  raw.parentHash = b.parentHash;
  raw.version = BLOCK_VERSION;
  if (b.timestamp) raw.timestamp = b.timestamp;
  const out: Json = { blockID: b.id, block_header: { raw_data: raw, witness_signature: b.witnessSignature } };
  if (withTxs && b.txs.length > 0) out.transactions = b.txs.map((t) => txJson(t, visible));
  return out;
}

export function txInfoJson(tx: TxRecord, block: Block, visible: boolean): Json {
  const i = tx.info;
  const out: Json = { id: tx.id };
  if (i.fee) out.fee = i.fee;
  out.blockNumber = block.number;
  out.blockTimeStamp = block.timestamp;
  out.contractResult = [i.contractResult];
  if (i.contractAddress) out.contract_address = addr(i.contractAddress, visible);
  const receipt: Json = {};
  if (i.energyFee) receipt.energy_fee = i.energyFee;
  if (i.energyUsageTotal) receipt.energy_usage_total = i.energyUsageTotal;
  if (i.netUsage) receipt.net_usage = i.netUsage;
  if (i.netFee) receipt.net_fee = i.netFee;
  if (i.result) receipt.result = i.result;
  out.receipt = receipt;
  const logs = logsOf(tx);
  if (logs.length > 0) out.log = logs;
  if (tx.contractRet !== "SUCCESS") {
    out.result = "FAILED";
    if (i.resMessage) out.resMessage = utf8ToHex(i.resMessage);
  }
  return out;
}

/**
 * txInfoJson(tx, block, false) serialised directly: the hot path of gettransactioninfobyblocknum, where
 * JSON.stringify with a bigint replacer was the dominant cost. Key order and omissions are identical.
 */
export function txInfoText(tx: TxRecord, block: Block): string {
  const i = tx.info;
  let s = `{"id":"${tx.id}"`;
  if (i.fee) s += `,"fee":${i.fee}`;
  s += `,"blockNumber":${block.number},"blockTimeStamp":${block.timestamp},"contractResult":["${i.contractResult}"]`;
  if (i.contractAddress) s += `,"contract_address":"${i.contractAddress}"`;
  const r: string[] = [];
  if (i.energyFee) r.push(`"energy_fee":${i.energyFee}`);
  if (i.energyUsageTotal) r.push(`"energy_usage_total":${i.energyUsageTotal}`);
  if (i.netUsage) r.push(`"net_usage":${i.netUsage}`);
  if (i.netFee) r.push(`"net_fee":${i.netFee}`);
  if (i.result) r.push(`"result":"${i.result}"`);
  s += `,"receipt":{${r.join(",")}}`;
  const logs = logsOf(tx);
  if (logs.length > 0) {
    s += `,"log":[${logs
      .map(
        (l) =>
          `{"address":"${l.address}","topics":[${l.topics.map((t) => `"${t}"`).join(",")}],"data":"${l.data}"}`,
      )
      .join(",")}]`;
  }
  if (tx.contractRet !== "SUCCESS") {
    s += `,"result":"FAILED"`;
    if (i.resMessage) s += `,"resMessage":"${utf8ToHex(i.resMessage)}"`;
  }
  return s + "}";
}

const ACTIVE_OPERATIONS = "7fff1fc0033e0300000000000000000000000000000000000000000000000000";

export function accountJson(a: Account, visible: boolean, now: number): Json {
  const address = addr(a.address, visible);
  const out: Json = { address };
  if (a.balance) out.balance = a.balance;
  out.create_time = a.createTime;
  if (a.latestOperationTime) out.latest_opration_time = a.latestOperationTime;
  const freeUsed = freeNetUsedAt(a, now);
  if (freeUsed) out.free_net_usage = freeUsed;
  if (a.latestConsumeFreeTime) out.latest_consume_free_time = a.latestConsumeFreeTime;
  out.account_resource = {};
  out.owner_permission = { permission_name: "owner", threshold: 1, keys: [{ address, weight: 1 }] };
  out.active_permission = [
    {
      type: "Active",
      id: 2,
      permission_name: "active",
      threshold: 1,
      operations: ACTIVE_OPERATIONS,
      keys: [{ address, weight: 1 }],
    },
  ];
  out.frozenV2 = [{}, { type: "ENERGY" }, { type: "TRON_POWER" }];
  return out;
}

/** getcontract: the SmartContract message, ABI in java-tron's `entrys` form so TronWeb's contract().at() works. */
export function contractJsonOf(t: Token, visible: boolean): Json {
  return {
    origin_address: addr(t.owner, visible),
    contract_address: addr(t.address, visible),
    abi: { entrys: TRC20_ABI },
    consume_user_resource_percent: 100,
    name: t.symbol === "USDT" ? "TetherToken" : t.name.replace(/\s+/g, ""),
    origin_energy_limit: 10_000_000,
    code_hash: utf8ToHex(t.address).slice(0, 64),
  };
}
