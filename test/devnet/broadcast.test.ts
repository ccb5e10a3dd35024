import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TronWeb } from "tronweb";
import type { Devnet } from "@stablegate/devnet";
import { freshDevnet, hexToUtf8, newAccount, post, tronWebFor } from "./helpers.js";

let devnet: Devnet;
let tw: TronWeb;

beforeAll(async () => {
  devnet = await freshDevnet();
  tw = tronWebFor(devnet);
});
afterAll(() => devnet.close());

type Head = { blockID: string; block_header: { raw_data: { number: number; timestamp: number } } };

async function refHeader(): Promise<{ ref_block_bytes: string; ref_block_hash: string; timestamp: number }> {
  const head = (await tw.trx.getCurrentBlock()) as unknown as Head;
  return {
    ref_block_bytes: head.block_header.raw_data.number.toString(16).slice(-4).padStart(4, "0"),
    ref_block_hash: head.blockID.slice(16, 32),
    timestamp: head.block_header.raw_data.timestamp,
  };
}

describe("devnet broadcast validation", () => {
  it("answers SUCCESS as java-tron does: {result: true, txid}", async () => {
    const to = await newAccount();
    const tx = await tw.transactionBuilder.sendTrx(to.base58, 1_000_000);
    const signed = await tw.trx.sign(tx);
    expect(await post(devnet, "/wallet/broadcasttransaction", signed)).toEqual({
      result: true,
      txid: tx.txID,
    });
  });

  it("gives SIGERROR for a signature by another key", async () => {
    const other = await newAccount();
    const tx = await tw.transactionBuilder.sendTrx((await newAccount()).base58, 1_000_000);
    // TronWeb refuses to sign with a foreign key, so sign below its owner check.
    const signed = tw.utils.crypto.signTransaction(other.privateKey, tx);
    const r = await tw.trx.sendRawTransaction(signed);
    expect(r.result).toBeFalsy();
    expect(r.code).toBe("SIGERROR");
    expect(hexToUtf8(r.message as string)).toContain(
      `is signed by ${other.base58} but it is not contained of permission`,
    );
    const unsigned = await post(devnet, "/wallet/broadcasttransaction", {
      ...tx,
      signature: ["00".repeat(64)],
    });
    expect(unsigned).toMatchObject({ code: "SIGERROR" });
    expect(unsigned).not.toHaveProperty("result"); // java-tron omits the false default
  });

  it("gives TRANSACTION_EXPIRATION_ERROR for an expired transaction and one more than 24 h ahead", async () => {
    const h = await refHeader();
    const to = (await newAccount()).base58;
    const old = await tw.transactionBuilder.sendTrx(to, 1_000_000, devnet.faucetAddress, {
      blockHeader: { ...h, expiration: h.timestamp - 1000 },
    });
    const r1 = await tw.trx.sendRawTransaction(await tw.trx.sign(old));
    expect(r1.code).toBe("TRANSACTION_EXPIRATION_ERROR");
    const far = await tw.transactionBuilder.sendTrx(to, 1_000_000, devnet.faucetAddress, {
      blockHeader: { ...h, expiration: h.timestamp + 25 * 3600 * 1000 },
    });
    expect((await tw.trx.sendRawTransaction(await tw.trx.sign(far))).code).toBe(
      "TRANSACTION_EXPIRATION_ERROR",
    );
  });

  it("gives TAPOS_ERROR when the reference block is not on this chain", async () => {
    const h = await refHeader();
    const tx = await tw.transactionBuilder.sendTrx(
      (await newAccount()).base58,
      1_000_000,
      devnet.faucetAddress,
      {
        blockHeader: { ...h, ref_block_hash: "0011223344556677", expiration: h.timestamp + 60_000 },
      },
    );
    const r = await tw.trx.sendRawTransaction(await tw.trx.sign(tx));
    expect(r.code).toBe("TAPOS_ERROR");
    expect(hexToUtf8(r.message as string)).toBe("Tapos check error.");
  });

  it("gives DUP_TRANSACTION_ERROR for a replay, pending or mined", async () => {
    const tx = await tw.transactionBuilder.sendTrx((await newAccount()).base58, 1_000_000);
    const signed = await tw.trx.sign(tx);
    expect((await tw.trx.sendRawTransaction(signed)).result).toBe(true);
    const again = await tw.trx.sendRawTransaction(signed);
    expect(again.code).toBe("DUP_TRANSACTION_ERROR");
    devnet.mine(1);
    expect((await tw.trx.sendRawTransaction(signed)).code).toBe("DUP_TRANSACTION_ERROR");
  });

  it("rejects a raw_data_hex or txID that does not match raw_data", async () => {
    const tx = await tw.transactionBuilder.sendTrx((await newAccount()).base58, 1_000_000);
    const signed = await tw.trx.sign(tx);
    const forged = await tw.transactionBuilder.sendTrx((await newAccount()).base58, 2_000_000);
    const r = await post(devnet, "/wallet/broadcasttransaction", {
      ...signed,
      raw_data_hex: forged.raw_data_hex,
    });
    expect(r).toMatchObject({ code: "OTHER_ERROR" });
    const r2 = await post(devnet, "/wallet/broadcasttransaction", { ...signed, txID: forged.txID });
    expect(r2).toMatchObject({ code: "OTHER_ERROR" });
  });

  it("accepts the signed protobuf through broadcasthex", async () => {
    const to = await newAccount();
    const tx = await tw.transactionBuilder.sendTrx(to.base58, 4_000_000);
    const signed = await tw.trx.sign(tx);
    const pb = tw.utils.transaction.txJsonToPb(signed);
    for (const s of signed.signature ?? []) pb.addSignature(Buffer.from(s, "hex"));
    const hex = Buffer.from(pb.serializeBinary()).toString("hex");
    const r = await tw.trx.sendHexTransaction(hex);
    expect(r.result).toBe(true);
    expect(r.txid).toBe(tx.txID);
    devnet.mine(1);
    expect(await tw.trx.getUnconfirmedBalance(to.base58)).toBe(4_000_000);
  });
});
