// The faucet's transactions: built and signed like any client would (real signature, TAPOS), then
// broadcast through the same validation and execution as everyone's.
import { encodeRawData, type RawDataJson } from "@stablegate/tron/protobuf";
import { signDigest } from "@stablegate/tron/sign";
import { refBlockBytes, refBlockHash } from "./blocks.js";
import type { Chain } from "./chain.js";
import { Refusal } from "./refusal.js";
import type { Token } from "./state.js";
import { bytesToHex, hexToBytes, sha256Bytes, word } from "./util.js";

export function faucetTransaction(
  chain: Chain,
  contract: RawDataJson["contract"][number],
  feeLimit?: number,
): Record<string, unknown> {
  const head = chain.head;
  chain.txTimestampSeq = Math.max(chain.now(), chain.txTimestampSeq + 1);
  const raw: RawDataJson = {
    contract: [contract],
    ref_block_bytes: refBlockBytes(head.number),
    ref_block_hash: refBlockHash(head.id),
    expiration: head.timestamp + 60_000,
    timestamp: chain.txTimestampSeq,
    ...(feeLimit ? { fee_limit: feeLimit } : {}),
  };
  const rawBytes = encodeRawData(raw);
  const txID = bytesToHex(sha256Bytes(rawBytes));
  return {
    txID,
    raw_data: raw,
    raw_data_hex: bytesToHex(rawBytes),
    signature: [signDigest(hexToBytes(txID), chain.faucetKey)],
  };
}

/** Sends TRX and/or a token from the faucet; returns the transaction ids. */
export function fundFromFaucet(
  chain: Chain,
  toHex41: string,
  trxSun: bigint,
  tokenUnits: bigint,
  token: Token,
): string[] {
  if (toHex41 === chain.faucet) throw new Refusal("OTHER_ERROR", "cannot fund the faucet itself");
  const ids: string[] = [];
  if (trxSun > 0n) {
    const tx = faucetTransaction(chain, {
      type: "TransferContract",
      parameter: {
        type_url: "type.googleapis.com/protocol.TransferContract",
        value: { owner_address: chain.faucet, to_address: toHex41, amount: Number(trxSun) },
      },
    });
    ids.push(chain.broadcast(tx).id);
  }
  if (tokenUnits > 0n) {
    const data = "a9059cbb" + word(BigInt("0x" + toHex41.slice(2))) + word(tokenUnits);
    const tx = faucetTransaction(
      chain,
      {
        type: "TriggerSmartContract",
        parameter: {
          type_url: "type.googleapis.com/protocol.TriggerSmartContract",
          value: { owner_address: chain.faucet, contract_address: token.address, data },
        },
      },
      1_000_000_000,
    );
    ids.push(chain.broadcast(tx).id);
  }
  return ids;
}
