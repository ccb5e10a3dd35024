import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TronWeb } from "tronweb";
import { fundedAccount, startChainTest, type ChainTest } from "./helpers.js";

const USDT = 1_000_000n;

let t: ChainTest;

beforeAll(async () => {
  t = await startChainTest();
  await t.scanner.sync();
});
afterAll(() => t.close());

async function receiptOf(txid: string): Promise<string | undefined> {
  const info = (await t.tw.trx.getTransactionInfo(txid)) as { receipt?: { result?: string } };
  return info.receipt?.result;
}

describe("what the scanner never credits", () => {
  it("ignores a Transfer of another TRC20 token to the order address", async () => {
    const order = await t.order("10");
    const token = await t.devnetPost<{ address: string }>("/devnet/tokens", {
      name: "Fake Tether",
      symbol: "USDT",
      decimals: 6,
    });
    const txid = await t.pay(order.address, 10n * USDT, { contract: token.address });
    t.mine();
    await t.finalize();
    expect(await receiptOf(txid)).toBe("SUCCESS");
    expect((await t.orderRow(order.id)).status).toBe("pending");
    expect(await t.transfersOf(order.id)).toEqual([]);
  });

  it("ignores a reverted transfer (amount above the payer's balance)", async () => {
    const order = await t.order("10");
    const payer = await fundedAccount(t, "100", "1");
    const txid = await t.pay(order.address, 10n * USDT, { privateKey: payer.privateKey });
    t.mine();
    await t.finalize();
    expect(await receiptOf(txid)).toBe("REVERT");
    expect((await t.orderRow(order.id)).status).toBe("pending");
    expect(await t.transfersOf(order.id)).toEqual([]);
  });

  it("ignores a transfer that ran out of energy (fee_limit too low)", async () => {
    const order = await t.order("10");
    const txid = await t.pay(order.address, 10n * USDT, { feeLimit: 1_000_000 });
    t.mine();
    await t.finalize();
    expect(await receiptOf(txid)).toBe("OUT_OF_ENERGY");
    expect((await t.orderRow(order.id)).status).toBe("pending");
    expect(await t.transfersOf(order.id)).toEqual([]);
  });

  it("ignores a zero-value transfer", async () => {
    const order = await t.order("10");
    const txid = await t.pay(order.address, 0n);
    t.mine();
    await t.finalize();
    expect(await receiptOf(txid)).toBe("SUCCESS");
    expect((await t.orderRow(order.id)).status).toBe("pending");
    expect(await t.transfersOf(order.id)).toEqual([]);
  });

  it("keeps scanning after all of them: the cursor is at the head and a real payment still counts", async () => {
    const order = await t.order("3");
    await t.pay(order.address, 3n * USDT);
    t.mine();
    await t.finalize();
    expect((await t.orderRow(order.id)).status).toBe("confirmed");
    expect(await t.cursor()).toBe(t.mine(0));
  });
});

describe("transferFrom", () => {
  it("credits a payment made by a spender with transferFrom, with the token holder as payer", async () => {
    const order = await t.order("8");
    const holder = await fundedAccount(t, "200", "50");
    const spender = await fundedAccount(t, "200");
    const approve = await t.pay(spender.address, 0n, {
      privateKey: holder.privateKey,
      method: "approve(address,uint256)",
      params: [
        { type: "address", value: spender.address },
        { type: "uint256", value: (8n * USDT).toString() },
      ],
    });
    t.mine(4); // TronWeb reads receipts from the solidified view
    expect(await receiptOf(approve)).toBe("SUCCESS");
    const txid = await t.pay(order.address, 0n, {
      privateKey: spender.privateKey,
      method: "transferFrom(address,address,uint256)",
      params: [
        { type: "address", value: holder.address },
        { type: "address", value: order.address },
        { type: "uint256", value: (8n * USDT).toString() },
      ],
    });
    t.mine();
    await t.scanner.sync();
    const detected = await t.orderRow(order.id);
    expect(detected.status).toBe("detected");
    expect(detected.txHash).toBe(txid);
    expect(detected.fromAddress).toBe(holder.address);
    expect(TronWeb.isAddress(detected.fromAddress ?? "")).toBe(true);

    await t.finalize();
    const row = await t.orderRow(order.id);
    expect(row.status).toBe("confirmed");
    expect(row.amountReceived).toBe(8n * USDT);
  });
});
