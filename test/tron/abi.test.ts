import { utils } from "tronweb";
import { describe, expect, it } from "vitest";
import { evmHex, hexToBase58 } from "@stablegate/tron/address";
import {
  decodeCall,
  decodeString,
  decodeTransferLog,
  decodeUint256,
  encodeAllowance,
  encodeApprove,
  encodeBalanceOf,
  encodeDecimals,
  encodeString,
  encodeTransfer,
  encodeTransferFrom,
  encodeUint256,
  selectorOf,
  SELECTORS,
  TRANSFER_TOPIC,
  APPROVAL_TOPIC,
} from "@stablegate/tron/abi";
import { makeRng } from "./rng.js";

const { encodeParams, decodeParams } = utils.abi;
const strip = (h: string) => h.replace(/^0x/, "");

describe("abi", () => {
  it("has selectors and topics that are the keccak of their signatures", () => {
    expect(SELECTORS.transfer).toBe(selectorOf("transfer(address,uint256)"));
    expect(SELECTORS.transferFrom).toBe(selectorOf("transferFrom(address,address,uint256)"));
    expect(SELECTORS.approve).toBe(selectorOf("approve(address,uint256)"));
    expect(SELECTORS.balanceOf).toBe(selectorOf("balanceOf(address)"));
    expect(SELECTORS.allowance).toBe(selectorOf("allowance(address,address)"));
    expect(SELECTORS.decimals).toBe(selectorOf("decimals()"));
    expect(SELECTORS.totalSupply).toBe(selectorOf("totalSupply()"));
    expect(SELECTORS.name).toBe(selectorOf("name()"));
    expect(SELECTORS.symbol).toBe(selectorOf("symbol()"));
    expect(strip(utils.crypto.sha3("Transfer(address,address,uint256)"))).toBe(TRANSFER_TOPIC);
    expect(strip(utils.crypto.sha3("Approval(address,address,uint256)"))).toBe(APPROVAL_TOPIC);
  });

  it("encodes calls exactly like TronWeb's ABI coder and decodes them back, for 300 random inputs", () => {
    const rng = makeRng(30);
    for (let i = 0; i < 300; i++) {
      const a = hexToBase58("41" + rng.hex(20));
      const b = hexToBase58("41" + rng.hex(20));
      const amount = rng.bigintUpTo(256);
      const t = encodeTransfer(a, amount);
      expect(t).toBe(SELECTORS.transfer + strip(encodeParams(["address", "uint256"], [a, amount])));
      expect(decodeCall(t)).toEqual({ method: "transfer", args: { to: a, amount } });
      const [to, val] = decodeParams([], ["address", "uint256"], t, true) as [string, bigint];
      expect(to).toBe("41" + evmHex(a));
      expect(BigInt(val)).toBe(amount);

      const tf = encodeTransferFrom(a, b, amount);
      expect(tf).toBe(
        SELECTORS.transferFrom + strip(encodeParams(["address", "address", "uint256"], [a, b, amount])),
      );
      expect(decodeCall(tf)).toEqual({ method: "transferFrom", args: { from: a, to: b, amount } });

      const ap = encodeApprove(b, amount);
      expect(ap).toBe(SELECTORS.approve + strip(encodeParams(["address", "uint256"], [b, amount])));
      expect(decodeCall(ap)).toEqual({ method: "approve", args: { spender: b, amount } });

      expect(decodeCall(encodeBalanceOf(a))).toEqual({ method: "balanceOf", args: { owner: a } });
      expect(decodeCall(encodeAllowance(a, b))).toEqual({
        method: "allowance",
        args: { owner: a, spender: b },
      });
      expect(decodeUint256(strip(encodeParams(["uint256"], [amount])))).toBe(amount);
    }
    expect(decodeCall(encodeDecimals())).toEqual({ method: "decimals", args: {} });
    expect(decodeCall("0x" + SELECTORS.totalSupply)).toEqual({ method: "totalSupply", args: {} });
  });

  it("encodes and decodes string return values like TronWeb", () => {
    for (const s of ["", "Tether USD", "USDT", "x".repeat(33), "ünïcödé"]) {
      expect(encodeString(s)).toBe(strip(encodeParams(["string"], [s])));
      expect(decodeString(encodeString(s))).toBe(s);
    }
  });

  it("returns null for short or dirty calldata and 'unknown' for other selectors", () => {
    const a = hexToBase58("41" + "ab".repeat(20));
    const t = encodeTransfer(a, 5n);
    expect(decodeCall(t.slice(0, -2))).toBeNull();
    expect(decodeCall("a905")).toBeNull();
    expect(decodeCall("zzzzzzzz")).toBeNull();
    const dirty = SELECTORS.transfer + "41" + t.slice(10);
    expect(decodeCall(dirty)).toBeNull();
    expect(decodeCall("deadbeef" + "00".repeat(32))).toEqual({
      method: "unknown",
      selector: "deadbeef",
      args: {},
    });
    expect(() => encodeUint256(-1n)).toThrow(RangeError);
    expect(() => encodeUint256(1n << 256n)).toThrow(RangeError);
    expect(() => decodeUint256("0".repeat(66))).toThrow();
    expect(decodeUint256("")).toBe(0n);
  });
});

describe("decodeTransferLog", () => {
  const contract = "41" + "a6".repeat(20);
  const from = "41" + "11".repeat(20);
  const to = "41" + "22".repeat(20);
  const word = (addr: string) => "0".repeat(24) + addr.slice(2);
  const good = {
    address: contract.slice(2),
    topics: [TRANSFER_TOPIC, word(from), word(to)],
    data: encodeUint256(12_500_000n),
  };

  it("decodes java-tron's log form (20-byte address, unprefixed topics) into base58 parties", () => {
    expect(decodeTransferLog(good)).toEqual({
      contract: hexToBase58(contract),
      from: hexToBase58(from),
      to: hexToBase58(to),
      value: 12_500_000n,
    });
    const prefixed = {
      address: "0x" + contract,
      topics: good.topics.map((t) => "0x" + t),
      data: "0x" + good.data,
    };
    expect(decodeTransferLog(prefixed)?.value).toBe(12_500_000n);
  });

  it("keeps values above 2^53 exact", () => {
    const big = (1n << 200n) + 1n;
    expect(decodeTransferLog({ ...good, data: encodeUint256(big) })?.value).toBe(big);
  });

  it("rejects a wrong topic, a wrong topic count, short or long data and dirty address words", () => {
    expect(decodeTransferLog({ ...good, topics: [APPROVAL_TOPIC, ...good.topics.slice(1)] })).toBeNull();
    expect(decodeTransferLog({ ...good, topics: good.topics.slice(0, 2) })).toBeNull();
    expect(decodeTransferLog({ ...good, topics: [...good.topics, encodeUint256(1n)] })).toBeNull();
    expect(decodeTransferLog({ ...good, data: good.data.slice(2) })).toBeNull();
    expect(decodeTransferLog({ ...good, data: "" })).toBeNull();
    expect(decodeTransferLog({ ...good, data: good.data + "00".repeat(32) })).toBeNull();
    expect(
      decodeTransferLog({ ...good, topics: [TRANSFER_TOPIC, "ff" + word(from).slice(2), word(to)] }),
    ).toBeNull();
    expect(decodeTransferLog({ ...good, address: "1234" })).toBeNull();
    expect(decodeTransferLog({ ...good, topics: "x" as unknown as string[] })).toBeNull();
  });
});
