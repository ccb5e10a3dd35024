// java-tron's JSON shapes: default (zero/empty) fields omitted, int64 as numbers, bytes as hex, and
// addresses as '41…' hex unless the request asked for visible=true (base58).
import { hexToBase58 } from "@stablegate/tron/address";
import { decodeRawDataHex, type ContractJson, type RawDataJson } from "@stablegate/tron/protobuf";
import { BLOCK_VERSION, logsOf, rawHexOf, signaturesOf, type Block, type TxRecord } from "./blocks.js";
import type { Account, Token } from "./state.js";
import { TRC20_ABI } from "./abi.js";
import { freeNetUsedAt } from "./resources.js";
import { stakeOf } from "./stake.js";
import { SLOT_MS, consume, windowV2 } from "./usage.js";
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
  } else if (c.type !== "TriggerSmartContract") {
    // Stake 2.0 contracts, in the key order mainnet blocks show them (absent keys are defaults).
    const order = STAKE_KEY_ORDER[c.type] ?? Object.keys(v);
    for (const k of order) {
      const x = v[k];
      if (x === undefined) continue;
      value[k] = k.endsWith("_address") ? addr(String(x), visible) : x;
    }
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

const STAKE_KEY_ORDER: Record<string, string[]> = {
  FreezeBalanceV2Contract: ["resource", "frozen_balance", "owner_address"],
  UnfreezeBalanceV2Contract: ["resource", "unfreeze_balance", "owner_address"],
  WithdrawExpireUnfreezeContract: ["owner_address"],
  DelegateResourceContract: [
    "balance",
    "resource",
    "receiver_address",
    "lock",
    "owner_address",
    "lock_period",
  ],
  UnDelegateResourceContract: ["balance", "resource", "receiver_address", "owner_address"],
};

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
  if (i.energyUsage) receipt.energy_usage = i.energyUsage;
  if (i.energyFee) receipt.energy_fee = i.energyFee;
  if (i.energyUsageTotal) receipt.energy_usage_total = i.energyUsageTotal;
  if (i.netUsage) receipt.net_usage = i.netUsage;
  if (i.netFee) receipt.net_fee = i.netFee;
  if (i.result) receipt.result = i.result;
  out.receipt = receipt;
  const logs = logsOf(tx);
  // java-tron prints log addresses as base58 under visible=true (topics and data stay hex)
  if (logs.length > 0)
    out.log = visible ? logs.map((l) => ({ ...l, address: hexToBase58("41" + l.address) })) : logs;
  if (tx.contractRet !== "SUCCESS") {
    out.result = "FAILED";
    if (i.resMessage) out.resMessage = utf8ToHex(i.resMessage);
  }
  if (i.withdrawExpireAmount) out.withdraw_expire_amount = i.withdrawExpireAmount;
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
  if (i.energyUsage) r.push(`"energy_usage":${i.energyUsage}`);
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
  if (i.withdrawExpireAmount) s += `,"withdraw_expire_amount":${i.withdrawExpireAmount}`;
  return s + "}";
}

const ACTIVE_OPERATIONS = "7fff1fc0033e0300000000000000000000000000000000000000000000000000";

/** The chain's clock as account JSON needs it: the head's time in ms and slots, and genesis in ms. */
export interface Clock {
  now: number;
  slot: number;
  genesisMs: number;
}

function resourceType(r: string): Json {
  return r === "BANDWIDTH" ? {} : { type: r };
}

/** getaccount: fields in java-tron's (field number) order, usage recovered to the head as it does. */
export function accountJson(a: Account, visible: boolean, clock: Clock): Json {
  const address = addr(a.address, visible);
  const s = stakeOf(a);
  const net = consume(s.net, 0, clock.slot);
  const energy = consume(s.energy, 0, clock.slot);
  const slotMs = (slot: number) => clock.genesisMs + SLOT_MS * slot;
  const out: Json = { address };
  if (a.balance) out.balance = a.balance;
  if (net.usage) out.net_usage = net.usage;
  out.create_time = a.createTime;
  if (a.latestOperationTime) out.latest_opration_time = a.latestOperationTime;
  const freeUsed = freeNetUsedAt(a, clock.now);
  if (freeUsed) out.free_net_usage = freeUsed;
  // Slot 0 is a real slot (a chain minted on demand spends its first 3 s there): an account that
  // consumed anything has a consume time, even when that slot is 0.
  if (s.net.time || s.net.usage) out.latest_consume_time = slotMs(s.net.time);
  if (a.latestConsumeFreeTime) out.latest_consume_free_time = a.latestConsumeFreeTime;
  out.net_window_size = windowV2(net);
  out.net_window_optimized = true;
  const resource: Json = {};
  if (energy.usage) resource.energy_usage = energy.usage;
  if (s.energy.time || s.energy.usage) resource.latest_consume_time_for_energy = slotMs(s.energy.time);
  resource.energy_window_size = windowV2(energy);
  if (s.delegatedEnergy) resource.delegated_frozenV2_balance_for_energy = s.delegatedEnergy;
  if (s.acquiredEnergy) resource.acquired_delegated_frozenV2_balance_for_energy = s.acquiredEnergy;
  resource.energy_window_optimized = true;
  out.account_resource = resource;
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
  const frozen = (type: Json, amount: bigint): Json => (amount ? { ...type, amount } : type);
  out.frozenV2 = [
    frozen({}, s.frozenNet),
    frozen({ type: "ENERGY" }, s.frozenEnergy),
    frozen({ type: "TRON_POWER" }, s.frozenPower),
  ];
  if (s.unfrozen.length > 0) {
    out.unfrozenV2 = s.unfrozen.map((u) => ({
      ...resourceType(u.resource),
      unfreeze_amount: u.amount,
      unfreeze_expire_time: u.expireTime,
    }));
  }
  if (s.delegatedNet) out.delegated_frozenV2_balance_for_bandwidth = s.delegatedNet;
  if (s.acquiredNet) out.acquired_delegated_frozenV2_balance_for_bandwidth = s.acquiredNet;
  out.asset_optimized = true;
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
