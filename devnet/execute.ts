// Applies one transaction to the state the way java-tron's Manager.processTransaction does: bandwidth
// first (it needs the owner account), then the contract; a refusal leaves the state untouched.
import { hexToBase58 } from "../src/tron/address.js";
import type { RawDataJson, TransferContractJson, TriggerSmartContractJson } from "../src/tron/protobuf.js";
import type { ContractRet, TxInfoCore } from "./blocks.js";
import {
  BANDWIDTH_PRICE_SUN,
  CREATE_ACCOUNT_FEE,
  CREATE_ACCOUNT_NET_FEE,
  ENERGY_PRICE_SUN,
  MAX_FEE_LIMIT,
  freeNetAvailable,
  freeNetUsedAt,
} from "./resources.js";
import type { Account, State } from "./state.js";
import { callToken } from "./trc20.js";

export type ReturnCode =
  | "SIGERROR"
  | "CONTRACT_VALIDATE_ERROR"
  | "CONTRACT_EXE_ERROR"
  | "BANDWITH_ERROR"
  | "DUP_TRANSACTION_ERROR"
  | "TAPOS_ERROR"
  | "TOO_BIG_TRANSACTION_ERROR"
  | "TRANSACTION_EXPIRATION_ERROR"
  | "OTHER_ERROR";

/** A broadcast java-tron refuses; nothing reaches a block. */
export class Refusal extends Error {
  constructor(
    readonly code: ReturnCode,
    message: string,
  ) {
    super(message);
  }
}

export const CONTRACT_VALIDATE_PREFIX = "Contract validate error : ";

function validateError(message: string): Refusal {
  return new Refusal("CONTRACT_VALIDATE_ERROR", CONTRACT_VALIDATE_PREFIX + message);
}

export function newAccount(address: string, now: number): Account {
  return {
    address,
    balance: 0n,
    createTime: now,
    latestOperationTime: now,
    freeNetUsed: 0,
    latestConsumeFreeTime: 0,
  };
}

export interface Executed {
  contractRet: ContractRet;
  info: TxInfoCore;
}

interface NetBill {
  account: Account;
  netUsage: number;
  netFee: bigint;
}

/** Bandwidth as BandwidthProcessor.consume: free 600/day, else burn 1000 sun per byte. */
function billBandwidth(
  state: State,
  ownerHex: string,
  bytes: number,
  createsAccount: boolean,
  now: number,
): NetBill {
  const owner = state.getAccount(ownerHex);
  if (!owner) throw validateError(`account [${hexToBase58(ownerHex)}] does not exist`);
  if (createsAccount) {
    if (owner.balance < CREATE_ACCOUNT_NET_FEE)
      throw new Refusal("BANDWITH_ERROR", "Account resource insufficient error.");
    return {
      account: { ...owner, balance: owner.balance - CREATE_ACCOUNT_NET_FEE, latestOperationTime: now },
      netUsage: 0,
      netFee: CREATE_ACCOUNT_NET_FEE,
    };
  }
  if (freeNetAvailable(owner, now) >= bytes) {
    return {
      account: {
        ...owner,
        freeNetUsed: freeNetUsedAt(owner, now) + bytes,
        latestConsumeFreeTime: now,
        latestOperationTime: now,
      },
      netUsage: bytes,
      netFee: 0n,
    };
  }
  const fee = BigInt(bytes) * BANDWIDTH_PRICE_SUN;
  if (owner.balance < fee) throw new Refusal("BANDWITH_ERROR", "Account resource insufficient error.");
  return {
    account: { ...owner, balance: owner.balance - fee, latestOperationTime: now },
    netUsage: 0,
    netFee: fee,
  };
}

export function executeTransaction(state: State, raw: RawDataJson, bytes: number, now: number): Executed {
  const contract = raw.contract[0];
  if (!contract || raw.contract.length !== 1) throw validateError("contract size should be exactly 1");
  if (contract.type === "TransferContract") return transferTrx(state, contract.parameter.value, bytes, now);
  if (contract.type === "TriggerSmartContract") {
    return triggerContract(state, contract.parameter.value, BigInt(raw.fee_limit ?? 0), bytes, now);
  }
  throw validateError(`${contract.type} is not supported by the devnet`);
}

function transferTrx(state: State, v: TransferContractJson, bytes: number, now: number): Executed {
  const owner = v.owner_address;
  const to = v.to_address;
  const amount = BigInt(v.amount ?? 0);
  if (!state.getAccount(owner)) throw validateError(`account [${hexToBase58(owner)}] does not exist`);
  if (owner === to) throw validateError("Cannot transfer TRX to yourself.");
  if (state.tokens.has(to)) throw validateError("Cannot transfer TRX to a smartContract.");
  const creates = !state.getAccount(to);
  const bill = billBandwidth(state, owner, bytes, creates, now);
  if (amount <= 0n) throw validateError("Amount must be greater than 0.");
  const createFee = creates ? CREATE_ACCOUNT_FEE : 0n;
  if (bill.account.balance < amount + createFee) {
    throw validateError("Validate TransferContract error, balance is not sufficient.");
  }
  state.putAccount({ ...bill.account, balance: bill.account.balance - amount - createFee });
  const recipient = state.getAccount(to) ?? newAccount(to, now);
  state.putAccount({ ...recipient, balance: recipient.balance + amount });
  return {
    contractRet: "SUCCESS",
    info: {
      fee: bill.netFee + createFee,
      contractResult: "",
      energyFee: 0n,
      energyUsageTotal: 0n,
      netUsage: bill.netUsage,
      netFee: bill.netFee,
      logs: [],
    },
  };
}

function triggerContract(
  state: State,
  v: TriggerSmartContractJson,
  feeLimit: bigint,
  bytes: number,
  now: number,
): Executed {
  const bill = billBandwidth(state, v.owner_address, bytes, false, now);
  const token = state.tokens.get(v.contract_address);
  if (!token) throw validateError("No contract or not a valid smart contract");
  if (feeLimit < 0n || feeLimit > MAX_FEE_LIMIT) {
    throw validateError(`feeLimit must be >= 0 and <= ${MAX_FEE_LIMIT}`);
  }
  if ((v.call_value ?? 0) > 0) throw validateError("contract is not payable");
  const caller = bill.account;
  const outcome = callToken(state, token, v.owner_address.slice(2), v.data ?? "");
  // No staked energy on the devnet: the energy limit is what the caller can burn, capped by fee_limit.
  const affordable = (caller.balance < feeLimit ? caller.balance : feeLimit) / ENERGY_PRICE_SUN;
  const base = {
    contractAddress: v.contract_address,
    netUsage: bill.netUsage,
    netFee: bill.netFee,
  };
  if (outcome.energy > affordable) {
    const energyFee = affordable * ENERGY_PRICE_SUN;
    state.putAccount({ ...caller, balance: caller.balance - energyFee });
    return {
      contractRet: "OUT_OF_ENERGY",
      info: {
        ...base,
        fee: energyFee + bill.netFee,
        contractResult: "",
        energyFee,
        energyUsageTotal: affordable,
        result: "OUT_OF_ENERGY",
        logs: [],
        resMessage:
          "Not enough energy for 'SSTORE' operation executing: curInvokeEnergyLimit[" +
          affordable.toString() +
          "], curOpEnergy[20000], usedEnergy[" +
          (affordable > 20000n ? affordable - 20000n : 0n).toString() +
          "]",
      },
    };
  }
  const energyFee = outcome.energy * ENERGY_PRICE_SUN;
  state.putAccount({ ...caller, balance: caller.balance - energyFee });
  if (outcome.status === "REVERT") {
    return {
      contractRet: "REVERT",
      info: {
        ...base,
        fee: energyFee + bill.netFee,
        contractResult: outcome.output,
        energyFee,
        energyUsageTotal: outcome.energy,
        result: "REVERT",
        logs: [],
        resMessage: "REVERT opcode executed",
      },
    };
  }
  outcome.commit();
  return {
    contractRet: "SUCCESS",
    info: {
      ...base,
      fee: energyFee + bill.netFee,
      contractResult: outcome.output,
      energyFee,
      energyUsageTotal: outcome.energy,
      result: "SUCCESS",
      logs: outcome.logs,
    },
  };
}
