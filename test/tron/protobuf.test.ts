import { TronWeb, utils } from "tronweb";
import { describe, expect, it } from "vitest";
import { addressFromPrivateKey, hexToBase58 } from "@stablegate/tron/address";
import { encodeTransfer } from "@stablegate/tron/abi";
import { signTransaction } from "@stablegate/tron/sign";
import {
  decodeRawData,
  decodeRawDataHex,
  encodeRawData,
  rawDataHex,
  txIdOf,
  withVisibleAddresses,
} from "@stablegate/tron/protobuf";
import type { RawDataJson, TransactionJson } from "@stablegate/tron/protobuf";
import {
  buildDelegateResource,
  buildFreezeBalanceV2,
  buildTriggerSmartContract,
  buildTrxTransfer,
  buildUnDelegateResource,
  buildUnfreezeBalanceV2,
  buildWithdrawExpireUnfreeze,
  tapos,
} from "@stablegate/tron/transaction";
import { makeRng } from "./rng.js";

const { txJsonToPb, txPbToRawDataHex, txPbToTxID, txCheck } = utils.transaction;

type Rng = ReturnType<typeof makeRng>;

/** TronWeb's own google-protobuf encoding of the same JSON, computed offline. */
function tronWebEncoding(tx: TransactionJson): { hex: string; txID: string } {
  const pb = txJsonToPb(tx as never);
  return { hex: txPbToRawDataHex(pb).toLowerCase(), txID: txPbToTxID(pb).replace(/^0x/, "") };
}

function common(rng: Rng) {
  const blockNumber = rng.bigintUpTo(40);
  return {
    refBlock: {
      number: blockNumber,
      hash: blockNumber.toString(16).padStart(16, "0") + rng.hex(24),
      timestamp: 1_500_000_000_000 + rng.int(2 ** 40),
    },
    ...(rng.bool() ? { expirationMs: 1_600_000_000_000 + rng.int(2 ** 40) } : {}),
    timestampMs: rng.int(10) === 0 ? 0 : 1_600_000_000_000 + rng.int(2 ** 40),
    ...(rng.int(4) === 0 ? { memoHex: rng.hex(1 + rng.int(40)) } : {}),
    ...(rng.int(5) === 0 ? { permissionId: 2 + rng.int(5) } : {}),
  };
}

function randomTx(rng: Rng, i: number): TransactionJson {
  const addr = () => "41" + rng.hex(20);
  switch (i % 7) {
    case 0:
      return buildTrxTransfer({ ...common(rng), from: addr(), to: addr(), amount: rng.bigintUpTo(53) });
    case 1:
      return buildTriggerSmartContract({
        ...common(rng),
        owner: addr(),
        contract: addr(),
        data: rng.hex(rng.int(5) === 0 ? 0 : 4 + 32 * rng.int(5)),
        feeLimit: rng.int(6) === 0 ? 0n : rng.bigintUpTo(40),
        ...(rng.bool() ? { callValue: rng.bigintUpTo(53) } : {}),
      });
    case 2:
      return buildDelegateResource({
        ...common(rng),
        owner: addr(),
        receiver: addr(),
        balance: rng.bigintUpTo(53),
        resource: rng.bool() ? "ENERGY" : "BANDWIDTH",
        lock: rng.bool(),
        ...(rng.bool() ? { lockPeriod: rng.bigintUpTo(30) } : {}),
      });
    case 4:
      return buildFreezeBalanceV2({
        ...common(rng),
        owner: addr(),
        amount: rng.bigintUpTo(53),
        resource: rng.bool() ? "ENERGY" : "BANDWIDTH",
      });
    case 5:
      return buildUnfreezeBalanceV2({
        ...common(rng),
        owner: addr(),
        amount: rng.bigintUpTo(53),
        resource: rng.bool() ? "ENERGY" : "BANDWIDTH",
      });
    case 6:
      return buildWithdrawExpireUnfreeze({ ...common(rng), owner: addr() });
    default:
      return buildUnDelegateResource({
        ...common(rng),
        owner: addr(),
        receiver: addr(),
        balance: rng.bigintUpTo(53),
        resource: rng.bool() ? "ENERGY" : "BANDWIDTH",
      });
  }
}

describe("protobuf and transaction building", () => {
  it("encodes 800 random transactions byte-identically to TronWeb 6, with the same txID", () => {
    const rng = makeRng(20);
    for (let i = 0; i < 800; i++) {
      const tx = randomTx(rng, i);
      const theirs = tronWebEncoding(tx);
      expect(tx.raw_data_hex, `case ${i}: ${JSON.stringify(tx.raw_data)}`).toBe(theirs.hex);
      expect(tx.txID).toBe(theirs.txID);
      expect(txCheck(tx as never)).toBe(true);
      expect(txIdOf(tx.raw_data_hex)).toBe(tx.txID);
    }
  });

  it("builds Stake 2.0 transactions exactly as TronWeb's transactionBuilder does", async () => {
    // No node is contacted: with a blockHeader option TronWeb builds the transaction offline.
    const tronWeb = new TronWeb({ fullHost: "http://127.0.0.1:1" });
    const tb = tronWeb.transactionBuilder;
    const rng = makeRng(23);
    for (let i = 0; i < 120; i++) {
      const c = common(rng);
      const { ref_block_bytes, ref_block_hash } = tapos(c.refBlock);
      const expiration = c.expirationMs ?? c.refBlock.timestamp + 60_000;
      const timestamp = 1_600_000_000_000 + rng.int(2 ** 40);
      const blockHeader = { ref_block_bytes, ref_block_hash, expiration, timestamp };
      const ours = { refBlock: c.refBlock, expirationMs: expiration, timestampMs: timestamp };
      const owner = hexToBase58("41" + rng.hex(20));
      const receiver = hexToBase58("41" + rng.hex(20));
      const amount = rng.bigintUpTo(50);
      const resource = rng.bool() ? "ENERGY" : "BANDWIDTH";
      let theirs: { raw_data_hex: string; txID: string };
      let mine: TransactionJson;
      switch (i % 5) {
        case 0:
          theirs = await tb.freezeBalanceV2(Number(amount), resource, owner, { blockHeader });
          mine = buildFreezeBalanceV2({ ...ours, owner, amount, resource });
          break;
        case 1:
          theirs = await tb.unfreezeBalanceV2(Number(amount), resource, owner, { blockHeader });
          mine = buildUnfreezeBalanceV2({ ...ours, owner, amount, resource });
          break;
        case 2:
          theirs = await tb.withdrawExpireUnfreeze(owner, { blockHeader });
          mine = buildWithdrawExpireUnfreeze({ ...ours, owner });
          break;
        case 3: {
          const lock = rng.bool();
          const lockPeriod = lock && rng.bool() ? 1 + rng.int(864_000) : undefined;
          theirs = await tb.delegateResource(Number(amount), receiver, resource, owner, lock, lockPeriod, {
            blockHeader,
          });
          mine = buildDelegateResource({
            ...ours,
            owner,
            receiver,
            balance: amount,
            resource,
            lock,
            lockPeriod,
          });
          break;
        }
        default:
          theirs = await tb.undelegateResource(Number(amount), receiver, resource, owner, { blockHeader });
          mine = buildUnDelegateResource({ ...ours, owner, receiver, balance: amount, resource });
      }
      expect(mine.raw_data_hex, `case ${i}`).toBe(theirs.raw_data_hex);
      expect(mine.txID).toBe(theirs.txID);
      expect(decodeRawDataHex(theirs.raw_data_hex)).toEqual(mine.raw_data);
    }
  });

  it("produces signed USDT transfers that TronWeb checks and attributes to the signer", () => {
    const key = "0b".repeat(32);
    const tx = signTransaction(
      buildTriggerSmartContract({
        owner: addressFromPrivateKey(key),
        contract: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
        data: encodeTransfer("TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC", 12_500_000n),
        feeLimit: 30_000_000n,
        refBlock: {
          number: 70_000_000n,
          hash: "00000000042c1d80" + "5a".repeat(24),
          timestamp: 1_700_000_000_000,
        },
      }),
      key,
    );
    expect(txCheck(tx as never)).toBe(true);
    expect(hexToBase58(utils.crypto.ecRecover(tx.txID, tx.signature[0] as string))).toBe(
      addressFromPrivateKey(key),
    );
    expect(tx.raw_data.ref_block_bytes).toBe("1d80");
    expect(tx.raw_data.expiration).toBe(1_700_000_060_000);
  });

  it("encodes visible=true (base58) raw_data to the same bytes TronWeb does", () => {
    const rng = makeRng(21);
    for (let i = 0; i < 200; i++) {
      const tx = randomTx(rng, i);
      const visibleRaw = withVisibleAddresses(tx.raw_data, true);
      const firstValue = visibleRaw.contract[0]?.parameter.value as { owner_address: string };
      expect(firstValue.owner_address).toMatch(/^T/);
      expect(rawDataHex(visibleRaw)).toBe(tx.raw_data_hex);
      const visibleTx = { ...tx, visible: true, raw_data: visibleRaw };
      expect(tronWebEncoding(visibleTx).hex).toBe(tx.raw_data_hex);
    }
  });

  it("decodes what it encodes back to the same JSON, for 400 random transactions", () => {
    const rng = makeRng(22);
    for (let i = 0; i < 400; i++) {
      const tx = randomTx(rng, i);
      expect(decodeRawDataHex(tx.raw_data_hex)).toEqual(tx.raw_data);
    }
  });

  it("round-trips the fields TronWeb never sets: ref_block_num, provider, ContractName, scripts", () => {
    const raw: RawDataJson = {
      ref_block_bytes: "abcd",
      ref_block_num: 123456,
      ref_block_hash: "0011223344556677",
      expiration: 1_700_000_060_000,
      data: "6d656d6f",
      contract: [
        {
          type: "TransferContract",
          parameter: {
            type_url: "type.googleapis.com/protocol.TransferContract",
            value: { owner_address: "41" + "11".repeat(20), to_address: "41" + "22".repeat(20), amount: 5 },
          },
          provider: "aa",
          ContractName: "6e616d65",
          Permission_id: 3,
        },
      ],
      scripts: "beef",
      timestamp: 1_700_000_000_000,
      fee_limit: 1_000_000,
    };
    const bytes = encodeRawData(raw);
    expect(decodeRawData(bytes)).toEqual(raw);
  });

  it("decodes addresses as base58 when visible is asked for", () => {
    const owner = "41" + "33".repeat(20);
    const tx = buildTrxTransfer({
      from: owner,
      to: "41" + "44".repeat(20),
      amount: 1n,
      refBlock: { number: 1, hash: "00".repeat(32) },
      nowMs: 1_700_000_000_000,
    });
    const value = decodeRawDataHex(tx.raw_data_hex, { visible: true }).contract[0]?.parameter.value;
    expect(value).toEqual({
      owner_address: hexToBase58(owner),
      to_address: hexToBase58("41" + "44".repeat(20)),
      amount: 1,
    });
  });

  it("rejects truncated bytes, unknown contract types and mismatched type_url", () => {
    const tx = buildTrxTransfer({
      from: "41" + "33".repeat(20),
      to: "41" + "44".repeat(20),
      amount: 7n,
      refBlock: { number: 1, hash: "00".repeat(32) },
    });
    expect(() => decodeRawDataHex(tx.raw_data_hex.slice(0, -6))).toThrow(/truncated/);
    const wrongUrl = tx.raw_data_hex.replace(
      Buffer.from("protocol.TransferContract").toString("hex"),
      Buffer.from("protocol.TransferContracX").toString("hex"),
    );
    expect(() => decodeRawDataHex(wrongUrl)).toThrow(/type_url/);
    // contract type 2 (TransferAssetContract) is not supported here
    const typeTwo = tx.raw_data_hex.replace(/5a(..)0801/, "5a$10802");
    expect(() => decodeRawDataHex(typeTwo)).toThrow(/unsupported contract type 2/);
  });
});

describe("TAPOS and defaults", () => {
  it("takes ref_block_bytes from bytes 6..8 of the number and ref_block_hash from bytes 8..16 of the blockID", () => {
    const blockId = "0000000003a2f1c9" + "1122334455667788" + "99".repeat(16);
    expect(tapos({ number: 0x3a2f1c9n, hash: blockId })).toEqual({
      ref_block_bytes: "f1c9",
      ref_block_hash: "1122334455667788",
    });
    expect(tapos({ number: 5, hash: "0x" + blockId.toUpperCase() }).ref_block_bytes).toBe("0005");
    expect(() => tapos({ number: 5, hash: "00" })).toThrow();
  });

  it("expires 60 s after the reference block, else after now, and stamps now", () => {
    const refBlock = { number: 10, hash: "00".repeat(32), timestamp: 1_000_000 };
    const base = { from: "41" + "11".repeat(20), to: "41" + "22".repeat(20), amount: 1n, nowMs: 5_000_000 };
    const a = buildTrxTransfer({ ...base, refBlock });
    expect(a.raw_data.expiration).toBe(1_060_000);
    expect(a.raw_data.timestamp).toBe(5_000_000);
    expect(a.visible).toBe(false);
    const b = buildTrxTransfer({ ...base, refBlock: { number: 10, hash: "00".repeat(32) } });
    expect(b.raw_data.expiration).toBe(5_060_000);
  });

  it("refuses non-positive transfers and amounts beyond exact JSON numbers", () => {
    const base = {
      from: "41" + "11".repeat(20),
      to: "41" + "22".repeat(20),
      refBlock: { number: 1, hash: "00".repeat(32) },
    };
    expect(() => buildTrxTransfer({ ...base, amount: 0n })).toThrow(RangeError);
    expect(() => buildTrxTransfer({ ...base, amount: -5n })).toThrow(RangeError);
    expect(() => buildTrxTransfer({ ...base, amount: 2n ** 53n })).toThrow(RangeError);
    expect(() => buildTrxTransfer({ ...base, to: "not an address", amount: 1n })).toThrow();
  });
});
