// Chain-wide reads: getchainparameters, getnodeinfo, getenergyprices, getbandwidthprices.
import type { Block } from "./blocks.js";
import type { Ctx, Handler } from "./api-util.js";
import {
  BANDWIDTH_PRICE_SUN,
  CREATE_ACCOUNT_FEE,
  CREATE_ACCOUNT_NET_FEE,
  ENERGY_PRICE_SUN,
  FREE_NET_LIMIT,
  MAX_FEE_LIMIT,
} from "./resources.js";

export const NODE_VERSION = "4.7.6";

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

export const CHAIN_HANDLERS = {
  getchainparameters: getChainParameters,
  getnodeinfo: getNodeInfo,
  getenergyprices: getEnergyPrices,
  getbandwidthprices: getBandwidthPrices,
} satisfies Record<string, Handler>;
