// Handlers of the java-tron HTTP API (/wallet/* and /walletsolidity/*). Each returns the reply body:
// an object to serialise or an already serialised string.
import { hexToBase58, isHexAddress, isValidAddress, toHex } from "../src/tron/address.js";
import { decodeRawData, encodeRawData, type RawDataJson } from "../src/tron/protobuf.js";
import { refBlockBytes, refBlockHash, type Block } from "./blocks.js";
import type { Chain } from "./chain.js";
import { CONTRACT_VALIDATE_PREFIX, Refusal } from "./execute.js";
import {
  accountJson,
  blockJson,
  contractJsonOf,
  txInfoJson,
  txInfoText,
  txJson,
  unsignedTxJson,
} from "./json.js";
import {
  BANDWIDTH_PRICE_SUN,
  CREATE_ACCOUNT_FEE,
  CREATE_ACCOUNT_NET_FEE,
  ENERGY_PRICE_SUN,
  FREE_NET_LIMIT,
  MAX_FEE_LIMIT,
} from "./resources.js";
import { isViewCall, callToken } from "./trc20.js";
import { STAKE_HANDLERS } from "./stake-api.js";
import { bytesToHex, hexToBytes, keccakHex, sha256Hex, toJson, utf8ToHex } from "./util.js";

export type Params = Record<string, unknown>;
export type Reply = unknown;
export interface Ctx {
  chain: Chain;
  /** true under /walletsolidity: only the solidified chain is visible. */
  solid: boolean;
  visible: boolean;
}
type Handler = (p: Params, ctx: Ctx) => Reply;

const EXPIRATION_MS = 60_000;
const BLOCK_LIMIT = 100;
export const NODE_VERSION = "4.7.6";

function num(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === "string" && /^-?\d+$/.test(v)) return Number(v);
  return undefined;
}

/** java-tron's Util.processError shape. */
function javaError(cls: string, message: string): Reply {
  return { Error: `class ${cls} : ${message}` };
}

function addressParam(v: unknown): string | null {
  if (typeof v !== "string") return null;
  if (isValidAddress(v)) return toHex(v);
  if (isHexAddress(v)) return toHex(v);
  return null;
}

function visibleBlock(ctx: Ctx, b: Block | undefined): Block | undefined {
  if (!b) return undefined;
  return ctx.solid && b.number > ctx.chain.solidifiedNumber ? undefined : b;
}

function topBlock(ctx: Ctx): Block {
  return ctx.solid ? (ctx.chain.blockByNum(ctx.chain.solidifiedNumber) as Block) : ctx.chain.head;
}

function returnMessage(msg: string, visible: boolean): string {
  // java-tron prints Return.message as hex, except in visible mode where it is readable text.
  return visible ? msg : utf8ToHex(msg);
}

/** Reference block, expiration and timestamp as java-tron's createTransactionCapsule sets them. */
function headerFor(
  chain: Chain,
): Pick<RawDataJson, "ref_block_bytes" | "ref_block_hash" | "expiration" | "timestamp"> {
  const head = chain.head;
  return {
    ref_block_bytes: refBlockBytes(head.number),
    ref_block_hash: refBlockHash(head.id),
    expiration: head.timestamp + EXPIRATION_MS,
    timestamp: chain.now(),
  };
}

function buildUnsigned(
  raw: RawDataJson,
  visible: boolean,
): { id: string; rawHex: string; json: Record<string, unknown> } {
  const bytes = encodeRawData(raw);
  const rawHex = bytesToHex(bytes);
  const id = sha256Hex(bytes);
  return { id, rawHex, json: unsignedTxJson(id, decodeRawData(bytes), rawHex, visible) };
}

// ---- blocks ----

const getNowBlock: Handler = (_p, ctx) => blockJson(topBlock(ctx), ctx.visible, true);

const getBlockByNum: Handler = (p, ctx) => {
  const b = visibleBlock(ctx, ctx.chain.blockByNum(num(p.num) ?? -1));
  return b ? blockJson(b, ctx.visible, true) : {};
};

const getBlockById: Handler = (p, ctx) => {
  const b = visibleBlock(ctx, ctx.chain.blockById(String(p.value ?? "")));
  return b ? blockJson(b, ctx.visible, true) : {};
};

const getBlock: Handler = (p, ctx) => {
  const detail = p.detail === true || p.detail === "true";
  const idOrNum = p.id_or_num;
  let b: Block | undefined;
  if (idOrNum === undefined || idOrNum === "") b = topBlock(ctx);
  else if (typeof idOrNum === "string" && idOrNum.length === 64)
    b = visibleBlock(ctx, ctx.chain.blockById(idOrNum));
  else b = visibleBlock(ctx, ctx.chain.blockByNum(num(idOrNum) ?? -1));
  return b ? blockJson(b, ctx.visible, detail) : {};
};

const getBlockByLimitNext: Handler = (p, ctx) => {
  const start = num(p.startNum) ?? 0;
  const end = num(p.endNum) ?? 0;
  if (start < 0 || end <= start || end - start > BLOCK_LIMIT) return {};
  const blocks: unknown[] = [];
  for (let n = start; n < end; n++) {
    const b = visibleBlock(ctx, ctx.chain.blockByNum(n));
    if (!b) break;
    blocks.push(blockJson(b, ctx.visible, true));
  }
  return blocks.length ? { block: blocks } : {};
};

const getBlockByLatestNum: Handler = (p, ctx) => {
  const n = num(p.num) ?? 0;
  if (n <= 0 || n > BLOCK_LIMIT) return {};
  const top = topBlock(ctx).number;
  const blocks: unknown[] = [];
  for (let i = Math.max(0, top - n + 1); i <= top; i++)
    blocks.push(blockJson(ctx.chain.blockByNum(i) as Block, ctx.visible, true));
  return { block: blocks };
};

// ---- transactions ----

const getTransactionById: Handler = (p, ctx) => {
  const tx = ctx.chain.txInBlock(String(p.value ?? ""), ctx.solid);
  return tx ? txJson(tx, ctx.visible) : {};
};

const getTransactionInfoById: Handler = (p, ctx) => {
  const tx = ctx.chain.txInBlock(String(p.value ?? ""), ctx.solid);
  if (!tx) return {};
  return txInfoJson(tx, ctx.chain.blockByNum(tx.blockNumber) as Block, ctx.visible);
};

const getTransactionInfoByBlockNum: Handler = (p, ctx) => {
  const b = visibleBlock(ctx, ctx.chain.blockByNum(num(p.num) ?? -1));
  if (!b) return "[]";
  if (ctx.visible) return b.txs.map((t) => txInfoJson(t, b, true));
  // Serialised once per block: scanners ask for every block, often more than once.
  b.infoJson ??= "[" + b.txs.map((t) => txInfoText(t, b)).join(",") + "]";
  return b.infoJson;
};

// ---- accounts ----

const getAccount: Handler = (p, ctx) => {
  const a = addressParam(p.address);
  if (!a) return javaError("java.lang.IllegalArgumentException", "Invalid address");
  const acc = ctx.chain.account(a, ctx.solid);
  return acc ? accountJson(acc, ctx.visible, ctx.chain.clock(ctx.solid)) : {};
};

// ---- chain ----

const chainParameters = (ctx: Ctx): [string, bigint | number][] => [
  ["getMaintenanceTimeInterval", 21_600_000],
  ["getAccountUpgradeCost", 9_999_000_000],
  ["getCreateAccountFee", CREATE_ACCOUNT_NET_FEE],
  ["getTransactionFee", BANDWIDTH_PRICE_SUN],
  ["getAssetIssueFee", 1_024_000_000],
  ["getWitnessPayPerBlock", 8_000_000],
  ["getWitnessStandbyAllowance", 115_200_000_000],
  ["getCreateNewAccountFeeInSystemContract", CREATE_ACCOUNT_FEE],
  ["getCreateNewAccountBandwidthRate", 1],
  ["getAllowCreationOfContracts", 1],
  ["getRemoveThePowerOfTheGr", -1],
  ["getEnergyFee", ENERGY_PRICE_SUN],
  ["getExchangeCreateFee", 1_024_000_000],
  ["getMaxCpuTimeOfOneTx", 80],
  ["getAllowUpdateAccountName", 0],
  ["getAllowSameTokenName", 1],
  ["getAllowDelegateResource", 1],
  ["getTotalEnergyLimit", ctx.chain.params.totalEnergyLimit],
  ["getAllowTvmTransferTrc10", 1],
  ["getTotalEnergyCurrentLimit", ctx.chain.params.totalEnergyLimit],
  ["getAllowMultiSign", 1],
  ["getAllowAdaptiveEnergy", 0],
  ["getUpdateAccountPermissionFee", 100_000_000],
  ["getMultiSignFee", 1_000_000],
  ["getAllowTvmConstantinople", 1],
  ["getAllowTvmSolidity059", 1],
  ["getAllowTvmIstanbul", 1],
  ["getAllowTvmLondon", 1],
  ["getFreeNetLimit", FREE_NET_LIMIT],
  ["getTotalNetLimit", ctx.chain.params.totalNetLimit],
  ["getMaxFeeLimit", MAX_FEE_LIMIT],
  ["getMemoFee", 1_000_000],
  ["getAllowNewResourceModel", 0],
  // java-tron counts the delay in days; a devnet delay below a day shows as 1
  ["getUnfreezeDelayDays", Math.ceil(ctx.chain.params.unfreezeDelayMs / 86_400_000)],
  ["getAllowDynamicEnergy", 0],
  ["getAllowDelegateOptimization", 1],
  ["getAllowCancelAllUnfreezeV2", 1],
  ["getMaxDelegateLockPeriod", ctx.chain.params.maxDelegateLockPeriod],
];

const getChainParameters: Handler = (_p, ctx) => ({
  chainParameter: chainParameters(ctx).map(([key, value]) => (value === 0 ? { key } : { key, value })),
});

const getNodeInfo: Handler = (_p, ctx) => {
  const head = ctx.chain.head;
  const solid = ctx.chain.blockByNum(ctx.chain.solidifiedNumber) as Block;
  return {
    beginSyncNum: head.number,
    block: `Num:${head.number},ID:${head.id}`,
    solidityBlock: `Num:${solid.number},ID:${solid.id}`,
    currentConnectCount: 0,
    activeConnectCount: 0,
    passiveConnectCount: 0,
    totalFlow: 0,
    peerInfoList: [],
    configNodeInfo: {
      codeVersion: NODE_VERSION,
      p2pVersion: "stablegate-devnet",
      versionNum: "1",
      listenPort: 0,
      discoverEnable: false,
      activeNodeSize: 0,
      passiveNodeSize: 0,
      sendNodeSize: 0,
      maxConnectCount: 0,
      sameIpMaxConnectCount: 0,
      backupListenPort: 0,
      backupMemberSize: 0,
      backupPriority: 0,
      dbVersion: 2,
      minParticipationRate: 0,
      supportConstant: true,
      minTimeRatio: 0,
      maxTimeRatio: 5,
      allowCreationOfContracts: 1,
      allowAdaptiveEnergy: 0,
    },
    machineInfo: {},
    cheatWitnessInfoMap: {},
  };
};

const getEnergyPrices: Handler = () => ({ prices: `0:${ENERGY_PRICE_SUN}` });
const getBandwidthPrices: Handler = () => ({ prices: `0:${BANDWIDTH_PRICE_SUN}` });

// ---- contracts ----

const getContract: Handler = (p, ctx) => {
  const a = addressParam(p.value);
  const t = a ? ctx.chain.state.tokens.get(a) : undefined;
  return t ? contractJsonOf(t, ctx.visible) : {};
};

const getContractInfo: Handler = (p, ctx) => {
  const a = addressParam(p.value);
  const t = a ? ctx.chain.state.tokens.get(a) : undefined;
  if (!t) return {};
  return {
    runtimecode: "6080604052",
    smart_contract: contractJsonOf(t, ctx.visible),
    contract_state: { energy_usage: 0, energy_factor: 0, update_cycle: 0 },
  };
};

/** function_selector + parameter as TronWeb sends them, or a raw `data`. */
function callData(p: Params): string {
  if (typeof p.function_selector === "string" && p.function_selector) {
    const sel = keccakHex(p.function_selector.replace(/\s/g, "")).slice(0, 8);
    return (
      sel +
      String(p.parameter ?? "")
        .replace(/^0x/, "")
        .toLowerCase()
    );
  }
  return String(p.data ?? "")
    .replace(/^0x/, "")
    .toLowerCase();
}

function triggerError(code: string, message: string, visible: boolean): Reply {
  return { result: { code, message: returnMessage(message, visible) } };
}

interface TriggerArgs {
  owner: string | null;
  contract: string;
  data: string;
  raw: RawDataJson;
}

function triggerArgs(p: Params, ctx: Ctx, withFeeLimit: boolean): TriggerArgs | Reply {
  const contract = addressParam(p.contract_address);
  if (!contract) return triggerError("OTHER_ERROR", "Invalid contract_address", ctx.visible);
  const owner =
    p.owner_address === undefined || p.owner_address === "" ? null : addressParam(p.owner_address);
  if (p.owner_address !== undefined && p.owner_address !== "" && !owner) {
    return triggerError("OTHER_ERROR", "Invalid owner_address", ctx.visible);
  }
  const data = callData(p);
  const callValue = num(p.call_value) ?? 0;
  const feeLimit = num(p.fee_limit) ?? 0;
  const raw: RawDataJson = {
    contract: [
      {
        type: "TriggerSmartContract",
        parameter: {
          type_url: "type.googleapis.com/protocol.TriggerSmartContract",
          value: {
            owner_address: owner ?? "410000000000000000000000000000000000000000",
            contract_address: contract,
            ...(callValue ? { call_value: callValue } : {}),
            ...(data ? { data } : {}),
          },
        },
      },
    ],
    ...headerFor(ctx.chain),
    ...(withFeeLimit && feeLimit ? { fee_limit: feeLimit } : {}),
  };
  return { owner, contract, data, raw };
}

function isArgs(x: unknown): x is TriggerArgs {
  return typeof x === "object" && x !== null && "raw" in x;
}

function constantCall(args: TriggerArgs, ctx: Ctx): Reply {
  const token = ctx.chain.state.tokens.get(args.contract);
  if (!token)
    return triggerError("CONTRACT_VALIDATE_ERROR", "No contract or not a valid smart contract", ctx.visible);
  const callerEvm = (args.owner ?? "410000000000000000000000000000000000000000").slice(2);
  const out = callToken(ctx.chain.state, token, callerEvm, args.data, ctx.chain.slotReader(ctx.solid));
  const tx = buildUnsigned(args.raw, ctx.visible);
  return {
    result: { result: true },
    energy_used: Number(out.energy),
    constant_result: [out.output],
    transaction: { ret: [out.status === "SUCCESS" ? {} : { ret: "FAILED" }], ...tx.json },
  };
}

const triggerConstantContract: Handler = (p, ctx) => {
  const args = triggerArgs(p, ctx, false);
  return isArgs(args) ? constantCall(args, ctx) : args;
};

const estimateEnergy: Handler = (p, ctx) => {
  const args = triggerArgs(p, ctx, false);
  if (!isArgs(args)) return args;
  const token = ctx.chain.state.tokens.get(args.contract);
  if (!token)
    return triggerError("CONTRACT_VALIDATE_ERROR", "No contract or not a valid smart contract", ctx.visible);
  const out = callToken(ctx.chain.state, token, (args.owner ?? "41" + "0".repeat(40)).slice(2), args.data);
  if (out.status !== "SUCCESS")
    return triggerError("CONTRACT_EXE_ERROR", "REVERT opcode executed", ctx.visible);
  return { result: { result: true }, energy_required: Number(out.energy) };
};

const triggerSmartContract: Handler = (p, ctx) => {
  const args = triggerArgs(p, ctx, true);
  if (!isArgs(args)) return args;
  if (!ctx.chain.state.tokens.has(args.contract)) {
    return triggerError("CONTRACT_VALIDATE_ERROR", "No contract or not a valid smart contract", ctx.visible);
  }
  // java-tron answers a call the ABI marks view/pure with its result instead of a transaction.
  if (isViewCall(args.data)) return constantCall(args, ctx);
  if (!args.owner) return triggerError("OTHER_ERROR", "owner_address isn't set.", ctx.visible);
  if (!ctx.chain.account(args.owner, false)) {
    return triggerError(
      "CONTRACT_VALIDATE_ERROR",
      `account [${hexToBase58(args.owner)}] does not exist`,
      ctx.visible,
    );
  }
  return { result: { result: true }, transaction: buildUnsigned(args.raw, ctx.visible).json };
};

const CVE = "org.tron.core.exception.ContractValidateException";

const createTransaction: Handler = (p, ctx) => {
  const owner = addressParam(p.owner_address);
  const to = addressParam(p.to_address);
  if (!owner) return javaError(CVE, "Invalid ownerAddress!");
  if (!to) return javaError(CVE, "Invalid toAddress!");
  const amount = num(p.amount) ?? 0;
  if (owner === to) return javaError(CVE, "Cannot transfer TRX to yourself.");
  const acc = ctx.chain.account(owner, false);
  if (!acc) return javaError(CVE, "Validate TransferContract error, no OwnerAccount.");
  if (amount <= 0) return javaError(CVE, "Amount must be greater than 0.");
  const fee = ctx.chain.account(to, false) ? 0n : CREATE_ACCOUNT_FEE;
  if (acc.balance < BigInt(amount) + fee)
    return javaError(CVE, "Validate TransferContract error, balance is not sufficient.");
  const raw: RawDataJson = {
    contract: [
      {
        type: "TransferContract",
        parameter: {
          type_url: "type.googleapis.com/protocol.TransferContract",
          value: { owner_address: owner, to_address: to, amount },
        },
      },
    ],
    ...headerFor(ctx.chain),
  };
  return buildUnsigned(raw, ctx.visible).json;
};

// ---- broadcast ----

function broadcastReply(ctx: Ctx, body: Params): { reply: Record<string, unknown>; id?: string } {
  try {
    const tx = ctx.chain.broadcast(body);
    return { reply: { result: true, txid: tx.id }, id: tx.id };
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    const reply: Record<string, unknown> = {
      result: false,
      code: e.code,
      message: returnMessage(e.message, ctx.visible),
    };
    if (typeof body.txID === "string") reply.txid = body.txID;
    return { reply };
  }
}

const broadcastTransaction: Handler = (p, ctx) => {
  if (!p.raw_data) return javaError("java.lang.NullPointerException", "raw_data is missing");
  return broadcastReply(ctx, p).reply;
};

/** Transaction protobuf: raw_data = field 1, signature = repeated field 2. */
function decodeTransactionHex(hex: string): { rawHex: string; signatures: string[] } {
  const buf = hexToBytes(hex);
  let pos = 0;
  const varint = (): number => {
    let r = 0;
    let mul = 1;
    for (;;) {
      if (pos >= buf.length) throw new Error("truncated transaction");
      const b = buf[pos++] as number;
      r += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return r;
      mul *= 128;
    }
  };
  let rawHex = "";
  const signatures: string[] = [];
  while (pos < buf.length) {
    const key = varint();
    const wire = key & 7;
    if (wire === 0) {
      varint();
      continue;
    }
    if (wire !== 2) throw new Error("unsupported wire type");
    const len = varint();
    const bytes = buf.subarray(pos, pos + len);
    pos += len;
    if (key >>> 3 === 1) rawHex = bytesToHex(bytes);
    else if (key >>> 3 === 2) signatures.push(bytesToHex(bytes));
  }
  return { rawHex, signatures };
}

const broadcastHex: Handler = (p, ctx) => {
  let decoded: { rawHex: string; signatures: string[] };
  let raw: RawDataJson;
  try {
    decoded = decodeTransactionHex(String(p.transaction ?? ""));
    raw = decodeRawData(hexToBytes(decoded.rawHex));
  } catch (e) {
    return javaError("com.google.protobuf.InvalidProtocolBufferException", (e as Error).message);
  }
  const body = { raw_data: raw, raw_data_hex: decoded.rawHex, signature: decoded.signatures };
  const { reply, id } = broadcastReply({ ...ctx, visible: true }, body);
  const txid = id ?? sha256Hex(hexToBytes(decoded.rawHex));
  const printed = toJson({
    signature: decoded.signatures,
    txID: txid,
    raw_data: raw,
    raw_data_hex: decoded.rawHex,
  });
  return {
    result: reply.result,
    code: reply.result ? "SUCCESS" : reply.code,
    message: reply.result ? "" : reply.message,
    transaction: printed,
    txid,
  };
};

const FULL = {
  getnowblock: getNowBlock,
  getblock: getBlock,
  getblockbynum: getBlockByNum,
  getblockbyid: getBlockById,
  getblockbylimitnext: getBlockByLimitNext,
  getblockbylatestnum: getBlockByLatestNum,
  gettransactionbyid: getTransactionById,
  gettransactioninfobyid: getTransactionInfoById,
  gettransactioninfobyblocknum: getTransactionInfoByBlockNum,
  getaccount: getAccount,
  getchainparameters: getChainParameters,
  getnodeinfo: getNodeInfo,
  getenergyprices: getEnergyPrices,
  getbandwidthprices: getBandwidthPrices,
  getcontract: getContract,
  getcontractinfo: getContractInfo,
  createtransaction: createTransaction,
  triggersmartcontract: triggerSmartContract,
  triggerconstantcontract: triggerConstantContract,
  estimateenergy: estimateEnergy,
  broadcasttransaction: broadcastTransaction,
  broadcasthex: broadcastHex,
} satisfies Record<string, Handler>;

// The read-only subset java-tron also serves under /walletsolidity (answering from solidified state).
const SOLIDITY_NAMES = [
  "getnowblock",
  "getblock",
  "getblockbynum",
  "getblockbyid",
  "getblockbylimitnext",
  "getblockbylatestnum",
  "gettransactionbyid",
  "gettransactioninfobyid",
  "gettransactioninfobyblocknum",
  "getaccount",
  "triggerconstantcontract",
  "getnodeinfo",
] as const satisfies readonly (keyof typeof FULL)[];

const STAKE: Record<string, Handler> = Object.fromEntries(
  Object.entries(STAKE_HANDLERS).map(([name, h]) => [
    name,
    (p: Params, ctx: Ctx) => h.run(p, ctx, addressParam),
  ]),
);

const SOLIDITY: Record<string, Handler> = {
  ...Object.fromEntries(SOLIDITY_NAMES.map((name) => [name, FULL[name]])),
  ...Object.fromEntries(
    Object.entries(STAKE_HANDLERS)
      .filter(([, h]) => h.solidity)
      .map(([name]) => [name, STAKE[name] as Handler]),
  ),
};

const WALLET: Record<string, Handler> = { ...FULL, ...STAKE };

/** The handler for /wallet/<name> or /walletsolidity/<name>; names are case-insensitive as in java-tron. */
export function walletHandler(prefix: "wallet" | "walletsolidity", name: string): Handler | undefined {
  const table: Record<string, Handler> = prefix === "wallet" ? WALLET : SOLIDITY;
  return table[name.toLowerCase()];
}

export { CONTRACT_VALIDATE_PREFIX };
