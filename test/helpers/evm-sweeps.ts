/**
 * Sweeps on the EVM devnet with ethers as an independent client: both of DESIGN 16's modes, so the
 * sweeper's tests and bench/evm-sweep-cost.ts send exactly the same transactions. Top-up mode: the
 * hot wallet sends the deposit address the gas its transfer needs, then the deposit key moves the
 * whole balance. 7702 mode: the hot wallet sends one transaction to the deposit address, carrying
 * the deposit key's authorization to the sweeper the first time (the delegation persists).
 */
import {
  Contract,
  JsonRpcProvider,
  Wallet,
  ZeroAddress,
  id,
  type Authorization,
  type TransactionReceipt,
  type TransactionRequest,
} from "ethers";
import {
  delegationCode,
  sweepCalldata,
  sweeperDeployData,
  sweeperRuntimeCode,
  type EvmDevnet,
} from "@stablegate/devnet";

// keccak256("Transfer(address,address,uint256)"); evm-devnet.ts has it too, but imports vitest,
// and bench/evm-sweep-cost.ts runs these helpers outside a test.
const TRANSFER_TOPIC = id("Transfer(address,address,uint256)");

// No outputs on transfer: Ethereum's USDT returns nothing.
const TOKEN_ABI = [
  "function transfer(address to, uint256 value)",
  "function balanceOf(address) view returns (uint256)",
];

/** An ethers provider for the devnet; blocks are mined as each transaction arrives. */
export async function automineProvider(devnet: EvmDevnet): Promise<JsonRpcProvider> {
  await devnet.rpc("evm_setAutomine", [true]);
  return new JsonRpcProvider(devnet.rpcUrl, devnet.chainId, { staticNetwork: true, cacheTimeout: -1 });
}

export async function mined(tx: Promise<{ wait(): Promise<TransactionReceipt | null> }>) {
  const receipt = await (await tx).wait();
  if (!receipt) throw new Error("no receipt");
  return receipt;
}

/** A new key holding `wei` of ETH from the faucet (none when 0n). */
export async function newWallet(provider: JsonRpcProvider, faucet: Wallet, wei = 0n): Promise<Wallet> {
  const wallet = new Wallet(Wallet.createRandom().privateKey, provider);
  if (wei > 0n) await mined(faucet.sendTransaction({ to: wallet.address, value: wei }));
  return wallet;
}

export async function tokenBalance(
  provider: JsonRpcProvider,
  token: string,
  holder: string,
): Promise<bigint> {
  return (await new Contract(token, TOKEN_ABI, provider).getFunction("balanceOf")(holder)) as bigint;
}

export async function sendToken(from: Wallet, token: string, to: string, amount: bigint, gasLimit?: bigint) {
  const transfer = new Contract(token, TOKEN_ABI, from).getFunction("transfer");
  return mined(transfer(to, amount, gasLimit === undefined ? {} : { gasLimit }));
}

/** Deploys a sweeper for `cold` from `from` and checks its code is the expected one. */
export async function deploySweeper(from: Wallet, cold: string): Promise<string> {
  const receipt = await mined(from.sendTransaction({ data: sweeperDeployData(cold) }));
  const address = receipt.contractAddress;
  if (!address) throw new Error("the sweeper's deployment made no contract");
  const code = await from.provider?.getCode(address);
  if (code !== sweeperRuntimeCode(cold)) throw new Error(`the sweeper at ${address} has unexpected code`);
  return address;
}

/** The deposit key's EIP-7702 authorization to delegate to `target` (ZeroAddress revokes). */
export async function authorization(
  provider: JsonRpcProvider,
  deposit: Wallet,
  target: string,
  nonce?: number,
): Promise<Authorization> {
  const { chainId } = await provider.getNetwork();
  // The deposit address never sends a transaction: its nonce counts the delegations applied.
  const next = nonce ?? (await provider.getTransactionCount(deposit.address, "latest"));
  return deposit.authorizeSync({ address: target, nonce: next, chainId });
}

/**
 * One sweep in 7702 mode, sent by `hot`: with `auth`, a type-4 transaction carrying it; without, a
 * plain call to the already delegated deposit address.
 */
export async function sweep7702(
  hot: Wallet,
  deposit: string,
  token: string,
  auth?: Authorization,
): Promise<TransactionReceipt> {
  const tx: TransactionRequest = { to: deposit, data: sweepCalldata(token), gasLimit: 200_000n };
  if (auth) Object.assign(tx, { type: 4, authorizationList: [auth] });
  return mined(hot.sendTransaction(tx));
}

/** Delegates `deposit` to `target` (ZeroAddress revokes) in a type-4 transaction `hot` sends to itself. */
export async function delegate(hot: Wallet, deposit: Wallet, target: string): Promise<TransactionReceipt> {
  const auth = await authorization(hot.provider as JsonRpcProvider, deposit, target);
  return mined(
    hot.sendTransaction({ type: 4, to: hot.address, authorizationList: [auth], gasLimit: 100_000n }),
  );
}

/** Whether `account` is delegated to `target` (ZeroAddress: not delegated at all). */
export async function delegatedTo(
  provider: JsonRpcProvider,
  account: string,
  target: string,
): Promise<boolean> {
  const code = await provider.getCode(account);
  return target === ZeroAddress ? code === "0x" : code === delegationCode(target);
}

export interface TopUpSweep {
  estimate: bigint;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  topUpWei: bigint;
  topUp: TransactionReceipt;
  sweep: TransactionReceipt;
  /** ETH left on the deposit address after the sweep. */
  dustWei: bigint;
}

/** docs/evm-sweeps.md's margins: 10 % on the gas estimate, two blocks of base-fee rise on the price. */
export const GAS_MARGIN_PERCENT = 10n;
export const BASE_FEE_RISE_BLOCKS = 2;

/**
 * One sweep in top-up mode: the deposit's transfer estimated at current fees, the hot wallet sends
 * exactly what that transfer may cost less what the address already holds, then the deposit key
 * moves the whole balance to `cold`.
 */
export async function topUpSweep(
  hot: Wallet,
  deposit: Wallet,
  token: string,
  cold: string,
): Promise<TopUpSweep> {
  const provider = deposit.provider as JsonRpcProvider;
  const amount = await tokenBalance(provider, token, deposit.address);
  const data = new Contract(token, TOKEN_ABI).interface.encodeFunctionData("transfer", [cold, amount]);
  const estimate = await provider.estimateGas({ from: deposit.address, to: token, data });
  const gasLimit = (estimate * (100n + GAS_MARGIN_PERCENT) + 99n) / 100n;
  const block = await provider.getBlock("latest");
  const tip = BigInt(await provider.send("eth_maxPriorityFeePerGas", []));
  // The base fee rises by at most 1/8 a block; the deposit's transfer lands within two blocks.
  let baseFee = block?.baseFeePerGas ?? 0n;
  for (let i = 0; i < BASE_FEE_RISE_BLOCKS; i++) baseFee += (baseFee + 7n) / 8n;
  const maxFeePerGas = baseFee + tip;
  const held = await provider.getBalance(deposit.address);
  const needed = gasLimit * maxFeePerGas;
  const topUpWei = needed > held ? needed - held : 0n;
  const topUp = await mined(hot.sendTransaction({ to: deposit.address, value: topUpWei }));
  const sweep = await mined(
    deposit.sendTransaction({ to: token, data, gasLimit, maxFeePerGas, maxPriorityFeePerGas: tip }),
  );
  const dustWei = await provider.getBalance(deposit.address);
  return { estimate, gasLimit, maxFeePerGas, topUpWei, topUp, sweep, dustWei };
}

export interface TokenMove {
  token: string;
  from: string;
  to: string;
  value: bigint;
}

/** The Transfer events in a receipt, addresses lower-cased. */
export function tokenMoves(receipt: TransactionReceipt): TokenMove[] {
  return receipt.logs
    .filter((l) => l.topics[0] === TRANSFER_TOPIC)
    .map((l) => ({
      token: l.address.toLowerCase(),
      from: "0x" + (l.topics[1] ?? "").slice(26),
      to: "0x" + (l.topics[2] ?? "").slice(26),
      value: BigInt(l.data),
    }));
}
