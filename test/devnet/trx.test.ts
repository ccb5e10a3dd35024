import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TronWeb } from "tronweb";
import type { Devnet } from "@stablegate/devnet";
import { freshDevnet, fund, hexToUtf8, newAccount, post, tronWebFor, type Info } from "./helpers.js";

let devnet: Devnet;
let tw: TronWeb;

beforeAll(async () => {
  devnet = await freshDevnet();
  tw = tronWebFor(devnet);
});
afterAll(() => devnet.close());

describe("devnet TRX accounts", () => {
  it("shows the faucet's genesis balance through getBalance and getAccount", async () => {
    expect(await tw.trx.getBalance(devnet.faucetAddress)).toBe(1_000_000_000_000_000);
    const acc = (await tw.trx.getAccount(devnet.faucetAddress)) as unknown as Record<string, unknown>;
    expect(acc.address).toBe(tw.address.toHex(devnet.faucetAddress).toLowerCase());
    expect(acc.balance).toBe(1_000_000_000_000_000);
    const unknown = await newAccount();
    expect(await tw.trx.getAccount(unknown.base58)).toEqual({});
    expect(await tw.trx.getBalance(unknown.base58)).toBe(0);
  });

  it("burns 1.1 TRX on top of the amount when sendTrx creates the recipient", async () => {
    const sender = await newAccount();
    await fund(devnet, sender.base58, "100");
    const to = await newAccount();
    const before = await tw.trx.getUnconfirmedBalance(sender.base58);
    const r = await tw.trx.sendTrx(to.base58, 5_000_000, { privateKey: sender.privateKey });
    expect(r.result).toBe(true);
    expect(await tw.trx.getUnconfirmedBalance(sender.base58)).toBe(before - 5_000_000 - 1_100_000);
    devnet.mine(4);
    expect(await tw.trx.getBalance(to.base58)).toBe(5_000_000);
    const info = (await tw.trx.getTransactionInfo(r.transaction.txID)) as unknown as Info;
    expect(info.fee).toBe(1_100_000);
    expect(info.receipt).toEqual({ net_fee: 100_000 });
    const tx = (await tw.trx.getTransaction(r.transaction.txID)) as unknown as {
      ret: { contractRet: string }[];
    };
    expect(tx.ret[0]?.contractRet).toBe("SUCCESS");
  });

  it("charges only the amount to an existing recipient while free bandwidth lasts, then 1000 sun per byte", async () => {
    const sender = await newAccount();
    await fund(devnet, sender.base58, "100");
    const to = await newAccount();
    await fund(devnet, to.base58, "1");
    const senderTw = tronWebFor(devnet, sender.privateKey);
    const b0 = await tw.trx.getUnconfirmedBalance(sender.base58);
    const first = await senderTw.trx.sendTrx(to.base58, 2_000_000);
    expect(await tw.trx.getUnconfirmedBalance(sender.base58)).toBe(b0 - 2_000_000);
    await senderTw.trx.sendTrx(to.base58, 2_000_001);
    // 600 free bytes a day cover two transfers of ~268 bytes; the third burns TRX for its bytes
    const third = await senderTw.trx.sendTrx(to.base58, 2_000_002);
    devnet.mine(4);
    const i1 = (await tw.trx.getTransactionInfo(first.transaction.txID)) as unknown as Info;
    expect(i1.fee).toBeUndefined();
    expect(i1.receipt.net_usage).toBeGreaterThan(200);
    const i3 = (await tw.trx.getTransactionInfo(third.transaction.txID)) as unknown as Info;
    expect(i3.receipt.net_fee).toBe((i1.receipt.net_usage as number) * 1000);
    expect(await tw.trx.getBalance(sender.base58)).toBe(b0 - 6_000_003 - (i3.fee as number));
    expect(await tw.trx.getBalance(to.base58)).toBe(1_000_000 + 6_000_003);
  });

  it("refuses a transaction from an account that does not exist", async () => {
    const ghost = await newAccount();
    const to = await newAccount();
    const r = await tw.trx.sendTrx(to.base58, 1_000_000, { privateKey: ghost.privateKey });
    expect(r.result).toBeFalsy();
    expect(r.code).toBe("CONTRACT_VALIDATE_ERROR");
    expect(hexToUtf8(r.message as string)).toBe(
      `Contract validate error : account [${ghost.base58}] does not exist`,
    );
    const created = await post(devnet, "/wallet/createtransaction", {
      owner_address: ghost.hex,
      to_address: to.hex,
      amount: 1_000_000,
    });
    expect(created).toEqual({
      Error:
        "class org.tron.core.exception.ContractValidateException : Validate TransferContract error, no OwnerAccount.",
    });
  });

  it("builds a transfer with createtransaction that TronWeb can sign and broadcast", async () => {
    const to = await newAccount();
    const tx = await post<Record<string, unknown>>(devnet, "/wallet/createtransaction", {
      owner_address: devnet.faucetAddress,
      to_address: to.base58,
      amount: 3_000_000,
      visible: true,
    });
    expect(tx.visible).toBe(true);
    const signed = await tw.trx.sign(tx as never);
    const r = await tw.trx.sendRawTransaction(signed);
    expect(r).toMatchObject({ result: true, txid: tx.txID });
    devnet.mine(1);
    expect(await tw.trx.getUnconfirmedBalance(to.base58)).toBe(3_000_000);
  });
});
