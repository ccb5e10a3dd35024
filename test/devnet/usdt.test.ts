import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TronWeb } from "tronweb";
import type { Devnet } from "@stablegate/devnet";
import { freshDevnet, fund, hexToUtf8, newAccount, post, tronWebFor, type Info } from "./helpers.js";
import { usdtBalance } from "../helpers/usdt.js";

const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

let devnet: Devnet;
let tw: TronWeb;

beforeAll(async () => {
  devnet = await freshDevnet();
  tw = tronWebFor(devnet);
});
afterAll(() => devnet.close());

async function info(txid: string): Promise<Info> {
  devnet.mine(4);
  return (await tw.trx.getTransactionInfo(txid)) as unknown as Info;
}

describe("devnet USDT", () => {
  it("exposes a TRC20 contract TronWeb can load, with USDT's name, symbol and decimals", async () => {
    const usdt = await tw.contract().at(devnet.usdtContract);
    expect(await usdt.name().call()).toBe("Tether USD");
    expect(await usdt.symbol().call()).toBe("USDT");
    expect(Number(await usdt.decimals().call())).toBe(6);
    expect(await usdtBalance(devnet, devnet.faucetAddress)).toBe(1_000_000_000n * 1_000_000n);
  });

  it("transfers through contract().at().transfer().send() with a SUCCESS receipt and a Transfer log", async () => {
    const to = await newAccount();
    const usdt = await tw.contract().at(devnet.usdtContract);
    const txid = (await usdt.transfer(to.base58, 12_340_000).send()) as string;
    const i = await info(txid);
    expect(i.receipt.result).toBe("SUCCESS");
    // a first payment to an address writes a fresh storage slot: ~130k energy
    expect(i.receipt.energy_usage_total).toBe(130_285);
    expect(i.receipt.energy_fee).toBe(130_285 * 100);
    expect(i.fee).toBe(130_285 * 100);
    expect(i.contract_address).toBe(tw.address.toHex(devnet.usdtContract).toLowerCase());
    expect(i.log).toHaveLength(1);
    const log = i.log?.[0] as NonNullable<Info["log"]>[number];
    expect(log.address).toBe(tw.address.toHex(devnet.usdtContract).toLowerCase().slice(2));
    expect(log.topics[0]).toBe(TRANSFER_TOPIC);
    expect(TronWeb.address.fromHex("41" + (log.topics[1] as string).slice(24))).toBe(devnet.faucetAddress);
    expect(TronWeb.address.fromHex("41" + (log.topics[2] as string).slice(24))).toBe(to.base58);
    expect(BigInt("0x" + log.data)).toBe(12_340_000n);
    expect(await usdtBalance(devnet, to.base58)).toBe(12_340_000n);
  });

  it("transfers through triggerSmartContract + sign + sendRawTransaction, cheaper to an existing holder", async () => {
    const to = await newAccount();
    await fund(devnet, to.base58, "1", "1");
    const built = await tw.transactionBuilder.triggerSmartContract(
      devnet.usdtContract,
      "transfer(address,uint256)",
      { feeLimit: 50_000_000 },
      [
        { type: "address", value: to.base58 },
        { type: "uint256", value: 2_500_000 },
      ],
      devnet.faucetAddress,
    );
    expect(built.result.result).toBe(true);
    const signed = await tw.trx.sign(built.transaction);
    const sent = await tw.trx.sendRawTransaction(signed);
    expect(sent).toMatchObject({ result: true, txid: signed.txID });
    const i = await info(signed.txID);
    expect(i.receipt).toMatchObject({ result: "SUCCESS", energy_usage_total: 64_285 });
    expect(await usdtBalance(devnet, to.base58)).toBe(3_500_000n);
  });

  it("answers estimateenergy and a solidified balanceOf", async () => {
    const to = await newAccount();
    const est = await tw.transactionBuilder.estimateEnergy(
      devnet.usdtContract,
      "transfer(address,uint256)",
      {},
      [
        { type: "address", value: to.base58 },
        { type: "uint256", value: 1 },
      ],
      devnet.faucetAddress,
    );
    expect(est.energy_required).toBe(130_285);
    const usdt = await tw.contract().at(devnet.usdtContract);
    await usdt.transfer(to.base58, 7).send();
    devnet.mine(1);
    const confirmed = async (): Promise<bigint> => {
      const r = await tw.transactionBuilder.triggerConfirmedConstantContract(
        devnet.usdtContract,
        "balanceOf(address)",
        {},
        [{ type: "address", value: to.base58 }],
        devnet.faucetAddress,
      );
      return BigInt("0x" + (r.constant_result[0] as string));
    };
    expect(await usdtBalance(devnet, to.base58)).toBe(7n);
    expect(await confirmed()).toBe(0n);
    devnet.mine(3);
    expect(await confirmed()).toBe(7n);
  });

  it("ends OUT_OF_ENERGY when the sender cannot pay: everything up to fee_limit burned, no tokens moved", async () => {
    const poor = await newAccount();
    await fund(devnet, poor.base58, "2", "10");
    const to = await newAccount();
    await fund(devnet, to.base58, "1", "1");
    const poorTw = tronWebFor(devnet, poor.privateKey);
    const usdt = await poorTw.contract().at(devnet.usdtContract);
    const txid = (await usdt.transfer(to.base58, 5_000_000).send({ feeLimit: 100_000_000 })) as string;
    const i = await info(txid);
    expect(i.receipt.result).toBe("OUT_OF_ENERGY");
    expect(i.result).toBe("FAILED");
    expect(i.receipt.energy_fee).toBe(2_000_000);
    expect(i.fee).toBe(2_000_000);
    expect(i.log).toBeUndefined();
    expect(await tw.trx.getBalance(poor.base58)).toBe(0);
    expect(await usdtBalance(devnet, poor.base58)).toBe(10_000_000n);
    expect(await usdtBalance(devnet, to.base58)).toBe(1_000_000n);
  });

  it("caps the burn at fee_limit", async () => {
    const rich = await newAccount();
    await fund(devnet, rich.base58, "100", "10");
    const usdt = await tronWebFor(devnet, rich.privateKey).contract().at(devnet.usdtContract);
    const txid = (await usdt
      .transfer((await newAccount()).base58, 1)
      .send({ feeLimit: 3_000_000 })) as string;
    const i = await info(txid);
    expect(i.receipt).toMatchObject({
      result: "OUT_OF_ENERGY",
      energy_fee: 3_000_000,
      energy_usage_total: 30_000,
    });
    expect(await tw.trx.getBalance(rich.base58)).toBe(97_000_000);
  });

  it("REVERTs when sending more USDT than held: energy charged, revert reason in contractResult", async () => {
    const sender = await newAccount();
    await fund(devnet, sender.base58, "50", "1");
    const to = await newAccount();
    const usdt = await tronWebFor(devnet, sender.privateKey).contract().at(devnet.usdtContract);
    const txid = (await usdt.transfer(to.base58, 5_000_000).send()) as string;
    const i = await info(txid);
    expect(i.receipt.result).toBe("REVERT");
    expect(i.result).toBe("FAILED");
    expect(hexToUtf8(i.resMessage as string)).toBe("REVERT opcode executed");
    const data = i.contractResult[0] as string;
    expect(data.slice(0, 8)).toBe("08c379a0");
    expect(hexToUtf8(data.slice(136)).replace(/\0+$/, "")).toBe("ERC20: transfer amount exceeds balance");
    expect(i.fee).toBe((i.receipt.energy_usage_total as number) * 100);
    expect(await tw.trx.getBalance(sender.base58)).toBe(50_000_000 - (i.fee as number));
    expect(await usdtBalance(devnet, sender.base58)).toBe(1_000_000n);
    expect(await usdtBalance(devnet, to.base58)).toBe(0n);
  });

  it("refuses triggersmartcontract from an account that does not exist", async () => {
    const ghost = await newAccount();
    await expect(
      tw.transactionBuilder.triggerSmartContract(
        devnet.usdtContract,
        "transfer(address,uint256)",
        {},
        [
          { type: "address", value: devnet.faucetAddress },
          { type: "uint256", value: 1 },
        ],
        ghost.base58,
      ),
    ).rejects.toThrow(`account [${ghost.base58}] does not exist`);
    const r = await post<{ result: { code: string } }>(devnet, "/wallet/triggersmartcontract", {
      owner_address: devnet.faucetAddress,
      contract_address: ghost.base58,
      function_selector: "transfer(address,uint256)",
      visible: true,
    });
    expect(r).toEqual({
      result: { code: "CONTRACT_VALIDATE_ERROR", message: "No contract or not a valid smart contract" },
    });
  });
});
