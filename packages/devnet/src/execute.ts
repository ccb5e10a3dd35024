// Applies one transaction to the state the way java-tron's Manager.processTransaction does: bandwidth
// first (it needs the owner account), then the contract; a refusal leaves the state untouched.
import { hexToBase58 } from "@stablegate/tron/address";
import type { RawDataJson, TransferContractJson, TriggerSmartContractJson } from "@stablegate/tron/protobuf";
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
import {
  delegateResource,
  freezeBalanceV2,
  unDelegateResource,
  unfreezeBalanceV2,
  withdrawExpireUnfreeze,
} from "./stake-actuators.js";
import { energyLeft, netLeft, stakeOf, totals, withStake, type ExecEnv } from "./stake.js";
import { consume } from "./usage.js";
import { Refusal, validateError } from "./refusal.js";

export { CONTRACT_VALIDATE_PREFIX, Refusal, validateError } from "./refusal.js";
export type { ReturnCode } from "./refusal.js";

export function newAccount(address: string, now: number): Account {
  return {
    address,
    balance: 0n,
    createTime: now,
    // java-tron sets latest_opration_time only once the account itself does something
    latestOperationTime: 0,
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

/**
 * Bandwidth as BandwidthProcessor.consume: staked bandwidth first, then the free 600/day, else burn
 * 1000 sun per byte. A transaction that creates an account uses staked bandwidth or pays 0.1 TRX.
 */
function billBandwidth(
  state: State,
  ownerHex: string,
  bytes: number,
  createsAccount: boolean,
  env: ExecEnv,
): NetBill {
  const owner = state.getAccount(ownerHex);
  if (!owner) throw validateError(`account [${hexToBase58(ownerHex)}] does not exist`);
  const now = env.now;
  const staked = netLeft(
    owner,
    totals((t, k) => state.getSlot(t, k), env.params),
    env.slot,
  );
  if (staked >= bytes) {
    const net = consume(stakeOf(owner).net, bytes, env.slot);
    return {
      account: withStake({ ...owner, latestOperationTime: now }, { net }),
      netUsage: bytes,
      netFee: 0n,
    };
  }
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

export function executeTransaction(state: State, raw: RawDataJson, bytes: number, env: ExecEnv): Executed {
  const contract = raw.contract[0];
  if (!contract || raw.contract.length !== 1) throw validateError("contract size should be exactly 1");
  switch (contract.type) {
    case "TransferContract":
      return transferTrx(state, contract.parameter.value, bytes, env);
    case "TriggerSmartContract":
      return triggerContract(state, contract.parameter.value, BigInt(raw.fee_limit ?? 0), bytes, env);
    case "FreezeBalanceV2Contract":
      return system(state, contract.parameter.value.owner_address, bytes, env, (owner) =>
        freezeBalanceV2(state, owner, contract.parameter.value),
      );
    case "UnfreezeBalanceV2Contract":
      return system(state, contract.parameter.value.owner_address, bytes, env, (owner) =>
        unfreezeBalanceV2(state, owner, contract.parameter.value, env),
      );
    case "WithdrawExpireUnfreezeContract":
      return system(state, contract.parameter.value.owner_address, bytes, env, (owner) =>
        withdrawExpireUnfreeze(state, owner, env),
      );
    case "DelegateResourceContract":
      return system(state, contract.parameter.value.owner_address, bytes, env, (owner) =>
        delegateResource(state, owner, contract.parameter.value, env),
      );
    case "UnDelegateResourceContract":
      return system(state, contract.parameter.value.owner_address, bytes, env, (owner) =>
        unDelegateResource(state, owner, contract.parameter.value, env),
      );
  }
  throw validateError(`${(contract as { type: string }).type} is not supported by the devnet`);
}

/** A system contract: bandwidth, then the actuator, which writes the owner (with its bill) itself. */
function system(
  state: State,
  owner: string,
  bytes: number,
  env: ExecEnv,
  run: (billed: Account) => bigint,
): Executed {
  const bill = billBandwidth(state, owner, bytes, false, env);
  const withdrawn = run(bill.account);
  const info: TxInfoCore = {
    fee: bill.netFee,
    contractResult: "",
    energyFee: 0n,
    energyUsageTotal: 0n,
    netUsage: bill.netUsage,
    netFee: bill.netFee,
    logs: [],
  };
  if (withdrawn > 0n) info.withdrawExpireAmount = withdrawn;
  return { contractRet: "SUCCESS", info };
}

function transferTrx(state: State, v: TransferContractJson, bytes: number, env: ExecEnv): Executed {
  const now = env.now;
  const owner = v.owner_address;
  const to = v.to_address;
  const amount = BigInt(v.amount ?? 0);
  if (!state.getAccount(owner)) throw validateError(`account [${hexToBase58(owner)}] does not exist`);
  if (owner === to) throw validateError("Cannot transfer TRX to yourself.");
  if (state.tokens.has(to)) throw validateError("Cannot transfer TRX to a smartContract.");
  const creates = !state.getAccount(to);
  const bill = billBandwidth(state, owner, bytes, creates, env);
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
  env: ExecEnv,
): Executed {
  const bill = billBandwidth(state, v.owner_address, bytes, false, env);
  const token = state.tokens.get(v.contract_address);
  if (!token) throw validateError("No contract or not a valid smart contract");
  if (feeLimit < 0n || feeLimit > MAX_FEE_LIMIT) {
    throw validateError(`feeLimit must be >= 0 and <= ${MAX_FEE_LIMIT}`);
  }
  if ((v.call_value ?? 0) > 0) throw validateError("contract is not payable");
  const caller = bill.account;
  const outcome = callToken(state, token, v.owner_address.slice(2), v.data ?? "");
  // VMActuator's limit: staked energy left plus what the balance can burn, capped by fee_limit / price.
  // The devnet's contracts declare consume_user_resource_percent 100, so the caller pays everything and
  // origin_energy_usage stays 0.
  const left = BigInt(
    energyLeft(
      caller,
      totals((t, k) => state.getSlot(t, k), env.params),
      env.slot,
    ),
  );
  const fromBalance = caller.balance / ENERGY_PRICE_SUN;
  const fromFeeLimit = feeLimit / ENERGY_PRICE_SUN;
  const limit = left + fromBalance < fromFeeLimit ? left + fromBalance : fromFeeLimit;
  const base = {
    contractAddress: v.contract_address,
    netUsage: bill.netUsage,
    netFee: bill.netFee,
  };
  const outOfEnergy = outcome.energy > limit;
  const used = outOfEnergy ? limit : outcome.energy;
  // ReceiptCapsule.payEnergyBill: staked energy (own and delegated) first, then burn TRX.
  const staked = used < left ? used : left;
  const energyFee = (used - staked) * ENERGY_PRICE_SUN;
  const charged = { ...caller, balance: caller.balance - energyFee };
  state.putAccount(
    staked > 0n
      ? withStake(charged, { energy: consume(stakeOf(caller).energy, Number(staked), env.slot) })
      : charged,
  );
  const paid = {
    ...base,
    fee: energyFee + bill.netFee,
    energyFee,
    energyUsage: staked,
    energyUsageTotal: used,
  };
  if (outOfEnergy) {
    return {
      contractRet: "OUT_OF_ENERGY",
      info: {
        ...paid,
        contractResult: "",
        result: "OUT_OF_ENERGY",
        logs: [],
        resMessage:
          "Not enough energy for 'SSTORE' operation executing: curInvokeEnergyLimit[" +
          limit.toString() +
          "], curOpEnergy[20000], usedEnergy[" +
          (limit > 20000n ? limit - 20000n : 0n).toString() +
          "]",
      },
    };
  }
  if (outcome.status === "REVERT") {
    return {
      contractRet: "REVERT",
      info: {
        ...paid,
        contractResult: outcome.output,
        result: "REVERT",
        logs: [],
        resMessage: "REVERT opcode executed",
      },
    };
  }
  outcome.commit();
  return {
    contractRet: "SUCCESS",
    info: { ...paid, contractResult: outcome.output, result: "SUCCESS", logs: outcome.logs },
  };
}
