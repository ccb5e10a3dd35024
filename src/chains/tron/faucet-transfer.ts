/**
 * A USDT transfer from the devnet faucet, built with our TRON toolkit, signed with the faucet's
 * documented key and broadcast: what a customer's wallet does. Used by `npm run demo:pay` and by
 * the sandbox route POST /api/v1/payments/:id/simulate. Devnet only (the key is public).
 */
import { DEFAULT_FAUCET_KEY } from "@stablegate/devnet";
import { encodeTransfer } from "@stablegate/tron/abi";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import type { NodeClient } from "@stablegate/tron/node-client";
import { signTransaction } from "@stablegate/tron/sign";
import { buildTriggerSmartContract } from "@stablegate/tron/transaction";

/** 100 TRX: far above a USDT transfer's ~13-27 TRX of burned energy. */
const FEE_LIMIT_SUN = 100_000_000;

export interface FaucetTransfer {
  /** The broadcast transaction's id (hex, 64 characters). */
  txHash: string;
  from: string;
}

export async function sendFaucetUsdt(
  client: NodeClient,
  input: { usdtContract: string; to: string; amount: bigint; faucetKey?: string },
): Promise<FaucetTransfer> {
  const key = input.faucetKey ?? DEFAULT_FAUCET_KEY;
  const from = addressFromPrivateKey(key);
  const head = await client.getNowBlock();
  const tx = buildTriggerSmartContract({
    owner: from,
    contract: input.usdtContract,
    data: encodeTransfer(input.to, input.amount),
    feeLimit: FEE_LIMIT_SUN,
    refBlock: {
      number: head.block_header.raw_data.number ?? 0,
      hash: head.blockID,
      timestamp: head.block_header.raw_data.timestamp,
    },
  });
  const signed = signTransaction(tx, key);
  await client.broadcastTransaction(signed);
  return { txHash: signed.txID, from };
}
