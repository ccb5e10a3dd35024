/**
 * The EIP-7702 sweeper (packages/devnet/contracts/Sweeper.sol) on a real Anvil over HTTP, driven by
 * ethers: a deposit address delegates to it with an authorization the hot wallet carries, and every
 * way a third party can call it only ever moves tokens to the cold wallet.
 */
import { readFileSync } from "node:fs";
import {
  Contract,
  Wallet,
  ZeroAddress,
  id,
  parseEther,
  parseUnits,
  type InterfaceAbi,
  type JsonRpcProvider,
} from "ethers";
import solc from "solc";
import { beforeAll, describe, expect, it } from "vitest";
import {
  EVM_SWEEPER_ARTIFACT,
  SWEEPER_SELECTORS,
  sweeperDeployData,
  sweeperRuntimeCode,
} from "@stablegate/devnet";
import { evmDevnetForFile } from "../helpers/evm-devnet.js";
import {
  authorization,
  automineProvider,
  delegate,
  delegatedTo,
  deploySweeper,
  mined,
  newWallet,
  sendToken,
  sweep7702,
  tokenBalance,
  tokenMoves,
} from "../helpers/evm-sweeps.js";

const devnet = evmDevnetForFile();

let provider: JsonRpcProvider;
let faucet: Wallet;
let hot: Wallet;
let cold: string;
let sweeper: string;
let usdt: string, usdc: string, usdt18: string;

beforeAll(async () => {
  const d = devnet();
  provider = await automineProvider(d);
  faucet = new Wallet(d.faucetPrivateKey, provider);
  ({ usdtContract: usdt, usdcContract: usdc, usdt18Contract: usdt18 } = d);
  hot = await newWallet(provider, faucet, parseEther("10"));
  cold = Wallet.createRandom().address;
  sweeper = await deploySweeper(hot, cold);
});

/** A fresh deposit address (no ETH, never delegated) holding `amount` of `token`. */
async function paidDeposit(token: string, amount: bigint): Promise<Wallet> {
  const deposit = await newWallet(provider, faucet);
  await sendToken(faucet, token, deposit.address, amount);
  return deposit;
}

const sweeperAt = (address: string, runner: Wallet) =>
  new Contract(address, EVM_SWEEPER_ARTIFACT.abi as InterfaceAbi, runner);

describe("the sweeper's code", () => {
  it("is what the artifact says for its cold wallet, and no other cold wallet's", async () => {
    expect(await provider.getCode(sweeper)).toBe(sweeperRuntimeCode(cold));
    expect(sweeperRuntimeCode(Wallet.createRandom().address)).not.toBe(sweeperRuntimeCode(cold));
    expect(await sweeperAt(sweeper, hot).getFunction("COLD_WALLET")()).toBe(cold);
    expect(SWEEPER_SELECTORS.sweep).toBe(id("sweep(address)").slice(0, 10));
    expect(SWEEPER_SELECTORS.coldWallet).toBe(id("COLD_WALLET()").slice(0, 10));
  });

  it("never writes storage, destroys itself, delegates or creates: no such opcode in it", () => {
    const code = Buffer.from(sweeperRuntimeCode(cold).slice(2), "hex");
    // solc appends CBOR metadata whose length is the last two bytes; it is data, not code.
    const end = code.length - 2 - code.readUInt16BE(code.length - 2);
    const forbidden = new Map([
      [0x55, "SSTORE"],
      [0x5d, "TSTORE"],
      [0xf0, "CREATE"],
      [0xf2, "CALLCODE"],
      [0xf4, "DELEGATECALL"],
      [0xf5, "CREATE2"],
      [0xff, "SELFDESTRUCT"],
    ]);
    const found: string[] = [];
    let calls = 0;
    for (let pc = 0; pc < end; pc++) {
      const op = code[pc] as number;
      if (forbidden.has(op)) found.push(`${forbidden.get(op)} at ${pc}`);
      if (op === 0xf1) calls++;
      if (op >= 0x60 && op <= 0x7f) pc += op - 0x5f; // PUSH1..PUSH32 carry data
    }
    expect(found).toEqual([]);
    expect(calls).toBe(1); // the token's transfer; balanceOf is a STATICCALL
  });

  it("cannot be deployed without a cold wallet", async () => {
    expect(() => sweeperDeployData(ZeroAddress)).toThrow(/zero address/);
    const data = EVM_SWEEPER_ARTIFACT.bytecode + "00".repeat(32);
    await expect(hot.sendTransaction({ data, gasLimit: 500_000n }).then((tx) => tx.wait())).rejects.toThrow(
      /revert/,
    );
  });
});

describe("a 7702 sweep", () => {
  it("moves USDT (no return value), USDC and 18-decimal USDT whole to the cold wallet, one transaction each, no ETH to the address", async () => {
    const amounts = new Map([
      [usdt, parseUnits("12.345678", 6)],
      [usdc, parseUnits("7.5", 6)],
      [usdt18, parseUnits("3.000000000000000001", 18)],
    ]);
    const deposit = await newWallet(provider, faucet);
    for (const [token, amount] of amounts) await sendToken(faucet, token, deposit.address, amount);
    const coldBefore = new Map<string, bigint>();
    for (const token of amounts.keys()) coldBefore.set(token, await tokenBalance(provider, token, cold));
    const hotNonce = await provider.getTransactionCount(hot.address);

    const auth = await authorization(provider, deposit, sweeper);
    expect(auth.nonce).toBe(0n);
    const receipts = [await sweep7702(hot, deposit.address, usdt, auth)];
    expect(receipts[0]?.type).toBe(4);
    expect(await delegatedTo(provider, deposit.address, sweeper)).toBe(true);
    // The delegation stays: later sweeps are plain calls to the address.
    receipts.push(await sweep7702(hot, deposit.address, usdc));
    receipts.push(await sweep7702(hot, deposit.address, usdt18));

    for (const [i, [token, amount]] of [...amounts].entries()) {
      const receipt = receipts[i];
      expect(receipt?.status, token).toBe(1);
      expect(receipt?.from).toBe(hot.address);
      expect(tokenMoves(receipt!)).toEqual([
        {
          token: token.toLowerCase(),
          from: deposit.address.toLowerCase(),
          to: cold.toLowerCase(),
          value: amount,
        },
      ]);
      expect(await tokenBalance(provider, token, deposit.address)).toBe(0n);
      expect(await tokenBalance(provider, token, cold)).toBe((coldBefore.get(token) ?? 0n) + amount);
    }
    expect(await provider.getBalance(deposit.address)).toBe(0n);
    expect(await provider.getTransactionCount(hot.address)).toBe(hotNonce + 3);
    // The deposit key signed one authorization and sent nothing: its nonce is 1.
    expect(await provider.getTransactionCount(deposit.address)).toBe(1);
  });

  it("costs less the second time: the delegation is already in place", async () => {
    const deposit = await paidDeposit(usdt, parseUnits("10", 6));
    const first = await sweep7702(
      hot,
      deposit.address,
      usdt,
      await authorization(provider, deposit, sweeper),
    );
    await sendToken(faucet, usdt, deposit.address, parseUnits("10", 6));
    const later = await sweep7702(hot, deposit.address, usdt);
    expect(first.status).toBe(1);
    expect(later.status).toBe(1);
    expect(tokenMoves(later).map((m) => m.value)).toEqual([parseUnits("10", 6)]);
    // A type-4 transaction pays 25,000 gas per authorization to an empty account.
    expect(first.gasUsed - later.gasUsed).toBeGreaterThanOrEqual(12_500n);
  });

  it("refuses an empty balance, ETH, and any other call", async () => {
    const deposit = await paidDeposit(usdc, 5n);
    await sweep7702(hot, deposit.address, usdc, await authorization(provider, deposit, sweeper));
    const asSweeper = sweeperAt(deposit.address, hot);
    await expect(asSweeper.getFunction("sweep").staticCall(usdc)).rejects.toMatchObject({
      revert: { name: "NothingToSweep" },
    });
    await sendToken(faucet, usdc, deposit.address, 5n);
    const sweepData = asSweeper.interface.encodeFunctionData("sweep", [usdc]);
    const refused: [string, { to: string; value?: bigint; data?: string }][] = [
      ["plain ETH to the deposit", { to: deposit.address, value: 1n }],
      ["a sweep carrying ETH", { to: deposit.address, value: 1n, data: sweepData }],
      ["transfer(address,uint256)", { to: deposit.address, data: "0xa9059cbb" + "00".repeat(64) }],
      ["plain ETH to the sweeper", { to: sweeper, value: 1n }],
    ];
    for (const [what, tx] of refused) {
      await expect(hot.call(tx), what).rejects.toMatchObject({ code: "CALL_EXCEPTION" });
      const sent = await hot.sendTransaction({ ...tx, gasLimit: 100_000n });
      await expect(sent.wait(), what).rejects.toMatchObject({ code: "CALL_EXCEPTION" });
    }
    expect(await provider.getBalance(deposit.address)).toBe(0n);
    expect(await provider.getBalance(sweeper)).toBe(0n);
    expect(await tokenBalance(provider, usdc, deposit.address)).toBe(5n);
  });
});

describe("abuse", () => {
  let stranger: Wallet;
  beforeAll(async () => {
    stranger = await newWallet(provider, faucet, parseEther("1"));
  });

  it("a third party's sweep only moves the tokens to the cold wallet", async () => {
    const deposit = await paidDeposit(usdt18, parseUnits("2", 18));
    const auth = await authorization(provider, deposit, sweeper);
    // The stranger carries the deposit's authorization, as anyone who saw it could.
    const receipt = await sweep7702(stranger, deposit.address, usdt18, auth);
    expect(tokenMoves(receipt)).toEqual([
      {
        token: usdt18.toLowerCase(),
        from: deposit.address.toLowerCase(),
        to: cold.toLowerCase(),
        value: parseUnits("2", 18),
      },
    ]);
    await sendToken(faucet, usdt18, deposit.address, 7n);
    const again = await sweep7702(stranger, deposit.address, usdt18);
    expect(tokenMoves(again).map((m) => [m.to, m.value])).toEqual([[cold.toLowerCase(), 7n]]);
    expect(await tokenBalance(provider, usdt18, stranger.address)).toBe(0n);
    // Tokens sent to the sweeper contract itself can only go to the cold wallet too.
    await sendToken(faucet, usdt18, sweeper, 3n);
    const direct = await mined(sweeperAt(sweeper, stranger).getFunction("sweep")(usdt18));
    expect(tokenMoves(direct).map((m) => [m.from, m.to, m.value])).toEqual([
      [sweeper.toLowerCase(), cold.toLowerCase(), 3n],
    ]);
  });

  it("a hostile token's transfer cannot redirect the deposit's tokens", async () => {
    const hostile = compileHostileToken();
    const deployHostile = async (answer: boolean) => {
      const args = hostile.iface.encodeDeploy([usdt, stranger.address, answer]).slice(2);
      const receipt = await mined(stranger.sendTransaction({ data: hostile.bytecode + args }));
      return receipt.contractAddress as string;
    };
    const deposit = await paidDeposit(usdt, parseUnits("50", 6));
    await delegate(hot, deposit, sweeper);
    expect(await delegatedTo(provider, deposit.address, sweeper)).toBe(true);
    const coldBefore = await tokenBalance(provider, usdt, cold);

    // transfer returns false: the whole sweep reverts, the re-entered one included.
    const liar = await deployHostile(false);
    const failed = await sweeperAt(deposit.address, stranger).getFunction("sweep")(liar, {
      gasLimit: 500_000n,
    });
    await expect(failed.wait()).rejects.toMatchObject({ code: "CALL_EXCEPTION" });
    expect(await tokenBalance(provider, usdt, deposit.address)).toBe(parseUnits("50", 6));

    const thief = await deployHostile(true);
    const receipt = await mined(sweeperAt(deposit.address, stranger).getFunction("sweep")(thief));
    const attempts = receipt.logs
      .filter((l) => l.address.toLowerCase() === thief.toLowerCase())
      .map((l) => hostile.iface.parseLog(l)?.args.toArray());
    expect(attempts).toEqual([
      ["transferFrom", false],
      ["deposit.transfer", false],
      ["deposit.execute", false],
      ["deposit.sweep(realToken)", true],
    ]);
    // The one attempt that worked sent everything to the cold wallet.
    expect(tokenMoves(receipt).filter((m) => m.token === usdt.toLowerCase())).toEqual([
      {
        token: usdt.toLowerCase(),
        from: deposit.address.toLowerCase(),
        to: cold.toLowerCase(),
        value: parseUnits("50", 6),
      },
    ]);
    expect(await tokenBalance(provider, usdt, stranger.address)).toBe(0n);
    expect(await tokenBalance(provider, usdt, cold)).toBe(coldBefore + parseUnits("50", 6));
  });

  it("the deposit key revokes and re-delegates; a stale authorization is skipped and moves nothing", async () => {
    const deposit = await paidDeposit(usdc, parseUnits("4", 6));
    const stale = await authorization(provider, deposit, sweeper, 5);
    const skipped = await sweep7702(hot, deposit.address, usdc, stale);
    // The transaction succeeds as a call to a plain account: success is the Transfer log, not the status.
    expect(skipped.status).toBe(1);
    expect(tokenMoves(skipped)).toEqual([]);
    expect(await delegatedTo(provider, deposit.address, ZeroAddress)).toBe(true);

    await delegate(hot, deposit, sweeper);
    expect(await delegatedTo(provider, deposit.address, sweeper)).toBe(true);

    await delegate(hot, deposit, ZeroAddress);
    expect(await delegatedTo(provider, deposit.address, ZeroAddress)).toBe(true);
    const nothing = await sweep7702(hot, deposit.address, usdc);
    expect(tokenMoves(nothing)).toEqual([]);
    expect(await tokenBalance(provider, usdc, deposit.address)).toBe(parseUnits("4", 6));

    const cold2 = Wallet.createRandom().address;
    const sweeper2 = await deploySweeper(hot, cold2);
    const moved = await sweep7702(
      hot,
      deposit.address,
      usdc,
      await authorization(provider, deposit, sweeper2),
    );
    expect(await delegatedTo(provider, deposit.address, sweeper2)).toBe(true);
    expect(tokenMoves(moved).map((m) => [m.to, m.value])).toEqual([
      [cold2.toLowerCase(), parseUnits("4", 6)],
    ]);
  });
});

function compileHostileToken() {
  const file = new URL("./contracts/HostileToken.sol", import.meta.url);
  const input = {
    language: "Solidity",
    sources: { "HostileToken.sol": { content: readFileSync(file, "utf8") } },
    settings: { evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const out = JSON.parse((solc.compile as (input: string) => string)(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const c = out.contracts["HostileToken.sol"]?.["HostileToken"];
  if (!c) throw new Error("solc produced no HostileToken");
  return {
    iface: new Contract(ZeroAddress, c.abi as never).interface,
    bytecode: "0x" + c.evm.bytecode.object,
  };
}
