/**
 * The EVM devnet over JSON-RPC: a real Anvil with the three tokens, paid with ethers and with viem.
 */
import { Contract, JsonRpcProvider, Wallet, parseUnits } from "ethers";
import {
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  encodeFunctionData,
  erc20Abi,
  http,
  parseAbi,
  type Hex,
} from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { anvil } from "viem/chains";
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EVM_FAUCET_ADDRESS, startEvmDevnet } from "@stablegate/devnet";
import {
  TRANSFER_TOPIC,
  addressTopic,
  evmDevnetForFile,
  minedReceipt,
  type EvmLog,
} from "../helpers/evm-devnet.js";

const devnet = evmDevnetForFile({ finalityDepth: 6 });

// Ethereum's USDT returns nothing from transfer, transferFrom and approve: an ABI without outputs.
const USDT_ABI = [
  "function transfer(address to, uint256 value)",
  "function balanceOf(address) view returns (uint256)",
  "function decimals() view returns (uint256)",
  "function addBlackList(address)",
  "function removeBlackList(address)",
  "function setParams(uint256 basisPoints, uint256 maxFee)",
  "function pause()",
  "function unpause()",
];
const USDT_ABI_VIEM = parseAbi([
  "function transfer(address to, uint256 value)",
  "function addBlackList(address)",
  "function removeBlackList(address)",
]);
const USDC_ABI_VIEM = parseAbi(["function blacklist(address)", "function unBlacklist(address)"]);

function viemClients() {
  const d = devnet();
  const chain = { ...anvil, id: d.chainId };
  const account = privateKeyToAccount(d.faucetPrivateKey as Hex);
  return {
    account,
    wallet: createWalletClient({ account, chain, transport: http(d.rpcUrl) }),
    client: createPublicClient({ chain, transport: http(d.rpcUrl) }),
  };
}

function ethersFaucet(): { provider: JsonRpcProvider; wallet: Wallet } {
  const d = devnet();
  const provider = new JsonRpcProvider(d.rpcUrl, d.chainId, { staticNetwork: true, cacheTimeout: -1 });
  return { provider, wallet: new Wallet(d.faucetPrivateKey, provider) };
}

async function balanceOf(token: string, holder: string): Promise<bigint> {
  const data = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [holder as Hex] });
  return BigInt(await devnet().rpc<string>("eth_call", [{ to: token, data }, "latest"]));
}

function freshAddress(): Hex {
  return privateKeyToAccount(generatePrivateKey()).address;
}

function transferLogs(logs: EvmLog[]): { token: string; from: string; to: string; value: bigint }[] {
  return logs
    .filter((l) => l.topics[0] === TRANSFER_TOPIC)
    .map((l) => {
      const event = decodeEventLog({ abi: erc20Abi, topics: l.topics as [Hex], data: l.data as Hex });
      const args = event.args as { from: string; to: string; value: bigint };
      return { token: l.address.toLowerCase(), from: args.from, to: args.to, value: args.value };
    });
}

describe("the EVM devnet", () => {
  it("deploys the three tokens at fixed addresses and the faucet holds ETH and every token", async () => {
    const d = devnet();
    expect(d.faucetAddress).toBe(EVM_FAUCET_ADDRESS);
    expect(privateKeyToAccount(d.faucetPrivateKey as Hex).address).toBe(d.faucetAddress);
    // The deployer's nonces 0, 1, 2 (CREATE addresses of Anvil's first dev account).
    expect([d.usdtContract, d.usdcContract, d.usdt18Contract]).toEqual([
      "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
      "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
    ]);
    const { client } = viemClients();
    const read = (address: string, functionName: "decimals" | "symbol") =>
      client.readContract({ address: address as Hex, abi: erc20Abi, functionName });
    expect(await read(d.usdtContract, "decimals")).toBe(6);
    expect(await read(d.usdcContract, "decimals")).toBe(6);
    expect(await read(d.usdt18Contract, "decimals")).toBe(18);
    expect([
      await read(d.usdtContract, "symbol"),
      await read(d.usdcContract, "symbol"),
      await read(d.usdt18Contract, "symbol"),
    ]).toEqual(["USDT", "USDC", "USDT"]);
    expect(await balanceOf(d.usdtContract, d.faucetAddress)).toBeGreaterThanOrEqual(10n ** 15n);
    expect(await balanceOf(d.usdcContract, d.faucetAddress)).toBeGreaterThanOrEqual(10n ** 15n);
    expect(await balanceOf(d.usdt18Contract, d.faucetAddress)).toBeGreaterThanOrEqual(10n ** 27n);
    expect(await client.getBalance({ address: d.faucetAddress as Hex })).toBeGreaterThan(10n ** 21n);
  });

  it("ethers pays USDT with an output-less ABI; the transfer returns no data and logs one Transfer", async () => {
    const d = devnet();
    const { wallet } = ethersFaucet();
    const to = freshAddress();
    const usdt = new Contract(d.usdtContract, USDT_ABI, wallet);
    const call = { to: d.usdtContract, data: usdt.interface.encodeFunctionData("transfer", [to, 1n]) };
    expect(await d.rpc("eth_call", [{ ...call, from: d.faucetAddress }, "latest"])).toBe("0x");

    const tx = (await usdt.getFunction("transfer")(to, parseUnits("12.5", 6))) as { hash: string };
    const receipt = await minedReceipt(d, tx.hash);
    expect(receipt.status).toBe("0x1");
    expect(transferLogs(receipt.logs)).toEqual([
      { token: d.usdtContract.toLowerCase(), from: d.faucetAddress, to, value: 12_500_000n },
    ]);
    expect(await balanceOf(d.usdtContract, to)).toBe(12_500_000n);
  });

  it("viem pays USDC and the 18-decimal token; USDC's transfer returns true", async () => {
    const d = devnet();
    const { wallet, client, account } = viemClients();
    const to = freshAddress();
    const simulated = await client.simulateContract({
      account,
      address: d.usdcContract as Hex,
      abi: erc20Abi,
      functionName: "transfer",
      args: [to, 1n],
    });
    expect(simulated.result).toBe(true);

    const usdc = await wallet.writeContract({
      address: d.usdcContract as Hex,
      abi: erc20Abi,
      functionName: "transfer",
      args: [to, 25_000_000n],
    });
    // 1.234567890123456789 tokens: a sub-micro remainder an 18-decimal token carries.
    const usdt18 = await wallet.writeContract({
      address: d.usdt18Contract as Hex,
      abi: erc20Abi,
      functionName: "transfer",
      args: [to, 1_234_567_890_123_456_789n],
    });
    await d.mine();
    const receipts = await Promise.all([usdc, usdt18].map((hash) => client.getTransactionReceipt({ hash })));
    expect(receipts.map((r) => r.status)).toEqual(["success", "success"]);
    const logs = receipts.flatMap((r) => transferLogs(r.logs as unknown as EvmLog[]));
    expect(logs).toEqual([
      { token: d.usdcContract.toLowerCase(), from: d.faucetAddress, to, value: 25_000_000n },
      { token: d.usdt18Contract.toLowerCase(), from: d.faucetAddress, to, value: 1_234_567_890_123_456_789n },
    ]);
    expect(await balanceOf(d.usdt18Contract, to)).toBe(1_234_567_890_123_456_789n);
  });

  it("viem's standard ERC-20 simulation fails on USDT's return-less transfer, as on Ethereum", async () => {
    const d = devnet();
    const { client, account } = viemClients();
    await expect(
      client.simulateContract({
        account,
        address: d.usdtContract as Hex,
        abi: erc20Abi,
        functionName: "transfer",
        args: [freshAddress(), 1n],
      }),
    ).rejects.toThrow(/returned no data/);
  });

  it("a blacklisted USDT sender cannot pay (a blacklisted receiver still can be paid); USDC blocks both", async () => {
    const d = devnet();
    const { wallet, client } = viemClients();
    const payerKey = generatePrivateKey();
    const payer = privateKeyToAccount(payerKey);
    const chain = { ...anvil, id: d.chainId };
    const payerWallet = createWalletClient({ account: payer, chain, transport: http(d.rpcUrl) });
    await wallet.sendTransaction({ to: payer.address, value: 10n ** 18n });
    await wallet.writeContract({
      address: d.usdtContract as Hex,
      abi: USDT_ABI_VIEM,
      functionName: "transfer",
      args: [payer.address, 50_000_000n],
    });
    await wallet.writeContract({
      address: d.usdtContract as Hex,
      abi: USDT_ABI_VIEM,
      functionName: "addBlackList",
      args: [payer.address],
    });
    await d.mine();

    const pay = encodeFunctionData({
      abi: USDT_ABI_VIEM,
      functionName: "transfer",
      args: [freshAddress(), 1n],
    });
    await expect(
      d.rpc("eth_call", [{ from: payer.address, to: d.usdtContract, data: pay }, "latest"]),
    ).rejects.toThrow(/revert/i);
    // Sent anyway (a fixed gas limit skips the estimate): mined, reverted, no Transfer.
    const hash = await payerWallet.sendTransaction({ to: d.usdtContract as Hex, data: pay, gas: 100_000n });
    const failed = await minedReceipt(d, hash);
    expect(failed.status).toBe("0x0");
    expect(failed.logs).toEqual([]);
    expect(await balanceOf(d.usdtContract, payer.address)).toBe(50_000_000n);

    // Ethereum's USDT checks only the sender: the blacklisted address still receives.
    const toBlacklisted = await wallet.writeContract({
      address: d.usdtContract as Hex,
      abi: USDT_ABI_VIEM,
      functionName: "transfer",
      args: [payer.address, 1_000_000n],
    });
    expect((await minedReceipt(d, toBlacklisted)).status).toBe("0x1");

    const blocked = freshAddress();
    await wallet.writeContract({
      address: d.usdcContract as Hex,
      abi: USDC_ABI_VIEM,
      functionName: "blacklist",
      args: [blocked],
    });
    await d.mine();
    await expect(
      client.simulateContract({
        account: wallet.account,
        address: d.usdcContract as Hex,
        abi: erc20Abi,
        functionName: "transfer",
        args: [blocked, 1n],
      }),
    ).rejects.toThrow(/Blacklistable: account is blacklisted/);
  });

  it("USDT's fee (setParams) sends the payee the value less the fee, and the fee to the owner", async () => {
    const d = devnet();
    const { wallet } = ethersFaucet();
    const usdt = new Contract(d.usdtContract, USDT_ABI, wallet);
    const payerKey = generatePrivateKey();
    const payer = new Wallet(payerKey, wallet.provider);
    await (
      await wallet.sendTransaction({
        to: payer.address,
        value: 10n ** 18n,
        nonce: await wallet.getNonce("pending"),
      })
    ).hash;
    await usdt.getFunction("transfer")(payer.address, 200_000_000n, {
      nonce: await wallet.getNonce("pending"),
    });
    // 10 basis points, at most 5 whole USDT.
    await usdt.getFunction("setParams")(10n, 5n, { nonce: await wallet.getNonce("pending") });
    await d.mine();
    const to = freshAddress();
    try {
      const tx = (await (usdt.connect(payer) as Contract).getFunction("transfer")(to, 100_000_000n)) as {
        hash: string;
      };
      const receipt = await minedReceipt(d, tx.hash);
      expect(transferLogs(receipt.logs)).toEqual([
        { token: d.usdtContract.toLowerCase(), from: payer.address, to: d.faucetAddress, value: 100_000n },
        { token: d.usdtContract.toLowerCase(), from: payer.address, to, value: 99_900_000n },
      ]);
      expect(await balanceOf(d.usdtContract, to)).toBe(99_900_000n);
    } finally {
      await usdt.getFunction("setParams")(0n, 0n, { nonce: await wallet.getNonce("pending") });
      await d.mine();
    }
  });

  it("the finalized tag lags the newest block by the finality depth (safe by half of it)", async () => {
    const d = devnet();
    const head = await d.mine(10);
    const block = async (tag: string) =>
      Number((await d.rpc<{ number: string }>("eth_getBlockByNumber", [tag, false])).number);
    expect(await block("latest")).toBe(head);
    expect(await block("finalized")).toBe(head - 6);
    expect(await block("safe")).toBe(head - 3);
    const { client } = viemClients();
    expect((await client.getBlock({ blockTag: "finalized" })).number).toBe(BigInt(head - 6));
  });

  it("anvil_reorg removes a transfer's log and changes the block's hash", async () => {
    const d = devnet();
    const { wallet } = ethersFaucet();
    const to = freshAddress();
    const usdt = new Contract(d.usdtContract, USDT_ABI, wallet);
    const tx = (await usdt.getFunction("transfer")(to, 7_000_000n, {
      nonce: await wallet.getNonce("pending"),
    })) as {
      hash: string;
    };
    const receipt = await minedReceipt(d, tx.hash);
    await d.mine(2);
    const filter = {
      fromBlock: receipt.blockNumber,
      toBlock: "latest",
      address: d.usdtContract,
      topics: [TRANSFER_TOPIC, null, addressTopic(to)],
    };
    expect(await d.rpc<EvmLog[]>("eth_getLogs", [filter])).toHaveLength(1);

    await d.rpc("anvil_reorg", [3, []]);
    expect(await d.rpc<EvmLog[]>("eth_getLogs", [filter])).toEqual([]);
    const replaced = await d.rpc<{ hash: string }>("eth_getBlockByNumber", [receipt.blockNumber, false]);
    expect(replaced.hash).not.toBe(receipt.blockHash);
    expect(await balanceOf(d.usdtContract, to)).toBe(0n);
  });
});

describe("the EVM devnet with a state file", () => {
  it("starts again on the same chain: blocks, hashes, balances and token addresses as they were", async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), "sg-evm-state-")), "chain.json");
    const first = await startEvmDevnet({ port: 0, blockTimeMs: 0, finalityDepth: 2, stateFile });
    const to = freshAddress();
    let before: { number: number; hash: string; usdt: string };
    try {
      const usdt = new Contract(
        first.usdtContract,
        USDT_ABI,
        new Wallet(first.faucetPrivateKey, new JsonRpcProvider(first.rpcUrl)),
      );
      const tx = (await usdt.getFunction("transfer")(to, 7_250_000n)) as { hash: string };
      const receipt = await minedReceipt(first, tx.hash);
      await first.mine(3);
      before = {
        number: Number(BigInt(receipt.blockNumber)),
        hash: receipt.blockHash,
        usdt: first.usdtContract,
      };
    } finally {
      await first.close();
    }
    const again = await startEvmDevnet({ port: 0, blockTimeMs: 0, finalityDepth: 2, stateFile });
    try {
      expect(again.usdtContract).toBe(before.usdt);
      expect([again.usdcContract, again.usdt18Contract]).toEqual([first.usdcContract, first.usdt18Contract]);
      const block = await again.rpc<{ hash: string }>("eth_getBlockByNumber", [
        "0x" + before.number.toString(16),
        false,
      ]);
      expect(block.hash).toBe(before.hash);
      const balance = await again.rpc<string>("eth_call", [
        { to: again.usdtContract, data: "0x70a08231" + to.slice(2).toLowerCase().padStart(64, "0") },
        "latest",
      ]);
      expect(BigInt(balance)).toBe(7_250_000n);
      expect(await again.mine(1)).toBe(before.number + 4);
    } finally {
      await again.close();
    }
  });
});
