// Handlers of the java-tron HTTP API (/wallet/* and /walletsolidity/*). Each returns the reply body:
// an object to serialise or an already serialised string.
import { hexToBase58 } from "@stablegate/tron/address";
import { decodeRawData, encodeRawData, type RawDataJson } from "@stablegate/tron/protobuf";
import {
  addressParam,
  javaError,
  num,
  returnMessage,
  type Ctx,
  type Handler,
  type Params,
  type Reply,
} from "./api-util.js";
import { refBlockBytes, refBlockHash, type Block } from "./blocks.js";
import { broadcastHex, broadcastTransaction } from "./broadcast-api.js";
import type { Chain } from "./chain.js";
import { CHAIN_HANDLERS } from "./chain-api.js";
import { CONTRACT_VALIDATE_PREFIX } from "./execute.js";
import {
  accountJson,
  blockJson,
  contractJsonOf,
  txInfoJson,
  txInfoText,
  txJson,
  unsignedTxJson,
} from "./json.js";
import { CREATE_ACCOUNT_FEE } from "./resources.js";
import { STAKE_HANDLERS } from "./stake-api.js";
import { isViewCall, callToken } from "./trc20.js";
import { bytesToHex, keccakHex, sha256Hex } from "./util.js";

export type { Ctx, Params, Reply } from "./api-util.js";

const EXPIRATION_MS = 60_000;
const BLOCK_LIMIT = 100;

function visibleBlock(ctx: Ctx, b: Block | undefined): Block | undefined {
  if (!b) return undefined;
  return ctx.solid && b.number > ctx.chain.solidifiedNumber ? undefined : b;
}

function topBlock(ctx: Ctx): Block {
  return ctx.solid ? (ctx.chain.blockByNum(ctx.chain.solidifiedNumber) as Block) : ctx.chain.head;
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
  if (p.contract_address === undefined || p.contract_address === "") {
    const message = "class java.security.InvalidParameterException : contract_address isn't set.";
    return triggerError("OTHER_ERROR", message, ctx.visible);
  }
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
  ...CHAIN_HANDLERS,
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

const SOLIDITY: Record<string, Handler> = {
  ...Object.fromEntries(SOLIDITY_NAMES.map((name) => [name, FULL[name]])),
  ...Object.fromEntries(
    Object.entries(STAKE_HANDLERS)
      .filter(([, h]) => h.solidity)
      .map(([name, h]) => [name, h.run]),
  ),
};

const WALLET: Record<string, Handler> = {
  ...FULL,
  ...Object.fromEntries(Object.entries(STAKE_HANDLERS).map(([name, h]) => [name, h.run])),
};

/** The handler for /wallet/<name> or /walletsolidity/<name>; names are case-insensitive as in java-tron. */
export function walletHandler(prefix: "wallet" | "walletsolidity", name: string): Handler | undefined {
  const table: Record<string, Handler> = prefix === "wallet" ? WALLET : SOLIDITY;
  return table[name.toLowerCase()];
}

export { CONTRACT_VALIDATE_PREFIX };
