/**
 * A devnet's faucet on an EVM chain: a real EIP-1559 transfer signed locally with the faucet's key
 * and broadcast with eth_sendRawTransaction (not waited for). The amount is in micro-units and sent
 * in the token's own units (micro × 10^(decimals − 6)); the token is called with an ABI without
 * outputs, as Ethereum's USDT returns nothing.
 */
import { Wallet } from "ethers";
import type { Faucet, TokenConfig } from "../chain.js";
import type { Currency } from "../chain-types.js";
import type { RpcClient } from "./rpc-client.js";

const word = (v: bigint | string) =>
  (typeof v === "string" ? v.replace(/^0x/, "") : v.toString(16)).padStart(64, "0");

export function evmFaucet(
  privateKey: string,
  rpc: RpcClient,
  tokens: (currency: Currency) => Promise<TokenConfig | undefined>,
): Faucet {
  const wallet = new Wallet(privateKey.startsWith("0x") ? privateKey : "0x" + privateKey);
  // One transfer at a time: each takes the next nonce.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    pay(to, currency, micro) {
      const send = async () => {
        const token = await tokens(currency);
        if (!token) throw new Error(`the devnet has no ${currency} token`);
        const units = micro * 10n ** BigInt(token.decimals - 6);
        const [chainId, nonce, tip, block] = await Promise.all([
          rpc.call<string>("eth_chainId", []),
          rpc.call<string>("eth_getTransactionCount", [wallet.address, "pending"]),
          rpc.call<string>("eth_maxPriorityFeePerGas", []).catch(() => "0x3b9aca00"),
          rpc.call<{ baseFeePerGas?: string }>("eth_getBlockByNumber", ["latest", false]),
        ]);
        const baseFee = BigInt(block.baseFeePerGas ?? "0x0");
        const signed = await wallet.signTransaction({
          type: 2,
          chainId: BigInt(chainId),
          nonce: Number(BigInt(nonce)),
          to: token.contract,
          data: "0xa9059cbb" + word(to) + word(units),
          gasLimit: 120_000n,
          maxPriorityFeePerGas: BigInt(tip),
          maxFeePerGas: baseFee * 2n + BigInt(tip),
          value: 0n,
        });
        const txHash = await rpc.call<string>("eth_sendRawTransaction", [signed]);
        return { txHash: txHash.toLowerCase(), from: wallet.address.toLowerCase() };
      };
      const result = queue.then(send, send);
      queue = result.catch(() => undefined);
      return result;
    },
  };
}
