/**
 * The EIP-681 transfer request a payer's wallet scans on an EVM chain:
 * `ethereum:<token>@<chain id>/transfer?address=<to>&uint256=<token units>`. The amount is in the
 * token's own units (its decimals, exactly: token-units.ts); addresses are EIP-55 checksummed, as
 * wallets show them.
 */
import { getAddress } from "ethers";
import type { TokenConfig } from "../chain.js";
import { microToUnits } from "../token-units.js";

export function eip681TransferUri(token: TokenConfig, chainId: bigint, to: string, micro: bigint): string {
  const units = microToUnits(micro, token.decimals);
  return `ethereum:${getAddress(token.contract)}@${chainId}/transfer?address=${getAddress(to)}&uint256=${units}`;
}
