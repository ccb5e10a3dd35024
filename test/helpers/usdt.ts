/**
 * A USDT balance read over the devnet's HTTP API (`/wallet/triggerconstantcontract` with
 * `balanceOf`), the way any TRON client reads it: the one balance reader of the tests.
 */
import { encodeBalanceOf } from "@stablegate/tron/abi";

/** What the reader needs of a devnet: its URL and its USDT contract (a `Devnet` is one). */
export interface UsdtChain {
  url: string;
  usdtContract: string;
}

/** `address`'s USDT balance in micro-units, at the head block. */
export async function usdtBalance(chain: UsdtChain, address: string): Promise<bigint> {
  const res = await fetch(`${chain.url}/wallet/triggerconstantcontract`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      owner_address: address,
      contract_address: chain.usdtContract,
      data: encodeBalanceOf(address),
      visible: true,
    }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`balanceOf(${address}): HTTP ${res.status} ${text}`);
  const body = JSON.parse(text) as { result?: { result?: boolean }; constant_result?: string[] };
  const word = body.constant_result?.[0];
  if (body.result?.result !== true || word === undefined)
    throw new Error(`balanceOf(${address}) failed: ${text}`);
  return BigInt(`0x${word}`);
}
