// The EIP-7702 sweeper (contracts/Sweeper.sol): what deploying it sends, the code a correct
// deployment has on chain, and the code a deposit address carries once delegated to it. Pure
// functions over the committed artifact, so a service can deploy and verify it without a compiler.
import { EVM_SWEEPER_ARTIFACT } from "./evm-sweeper-artifact.js";

export { EVM_SWEEPER_ARTIFACT, type EvmSweeperArtifact } from "./evm-sweeper-artifact.js";

/** EIP-7702's delegation designator: an account delegated to `target` has this code. */
export const DELEGATION_PREFIX = "0xef0100";

/** The calldata selectors of the sweeper's two functions. */
export const SWEEPER_SELECTORS = {
  /** sweep(address) */
  sweep: "0x01681a62",
  /** COLD_WALLET() */
  coldWallet: "0x6744bb26",
} as const;

function addressHex(address: string, what: string): string {
  const hex = address.toLowerCase().replace(/^0x/, "");
  if (!/^[0-9a-f]{40}$/.test(hex)) throw new TypeError(`${what} must be a 20-byte hex address`);
  if (/^0{40}$/.test(hex)) throw new TypeError(`${what} must not be the zero address`);
  return hex;
}

/** The data of the transaction that deploys a sweeper sending every token to `coldWallet`. */
export function sweeperDeployData(coldWallet: string): `0x${string}` {
  return `${EVM_SWEEPER_ARTIFACT.bytecode}${addressHex(coldWallet, "coldWallet").padStart(64, "0")}`;
}

/**
 * The runtime code a sweeper deployed for `coldWallet` has (`eth_getCode`): compare it before
 * signing any delegation to that address. Different code, or the same code with another cold
 * wallet, is not ours.
 */
export function sweeperRuntimeCode(coldWallet: string): `0x${string}` {
  const word = addressHex(coldWallet, "coldWallet").padStart(64, "0");
  let hex = EVM_SWEEPER_ARTIFACT.deployedBytecode.slice(2);
  for (const offset of EVM_SWEEPER_ARTIFACT.coldWalletOffsets) {
    hex = hex.slice(0, offset * 2) + word + hex.slice(offset * 2 + 64);
  }
  return `0x${hex}`;
}

/** The code of an account delegated to `target` (`0xef0100 ‖ target`). */
export function delegationCode(target: string): `0x${string}` {
  return `${DELEGATION_PREFIX}${addressHex(target, "target")}`;
}

/** Calldata of `sweep(token)`, sent to the delegated deposit address. */
export function sweepCalldata(token: string): `0x${string}` {
  return `${SWEEPER_SELECTORS.sweep}${addressHex(token, "token").padStart(64, "0")}`;
}
