/**
 * Sending by nonce on an EVM chain (../chain.ts NonceSending): EIP-1559 transactions signed locally
 * with ethers' Wallet, nonces and fees read from the node, raw bytes broadcast with
 * eth_sendRawTransaction. A node's "already known" is a success (the same bytes again); "nonce too
 * low" says the nonce is used on the chain, by these bytes or others, which the outbox tells apart
 * by receipts.
 */
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { Interface, keccak256, Signature, Wallet, type Authorization } from "ethers";
import type {
  BroadcastResult,
  NonceReceipt,
  NonceSending,
  SignedAuthorization,
  TransactionSigner,
} from "../chain.js";
import { EvmRpcError } from "./rpc-client.js";
import type { RpcPool } from "./rpc-pool.js";

const KNOWN = /already known|known transaction|already imported|already in (the )?(tx)?pool|already exists/i;
const NONCE_USED = /nonce too low|nonce has already been used|old nonce/i;

// No outputs on transfer: Ethereum's USDT returns nothing, and nothing here reads a returned bool.
const ERC20 = new Interface([
  "function transfer(address to, uint256 value)",
  "function balanceOf(address holder) view returns (uint256)",
]);

const quantity = (n: bigint) => "0x" + n.toString(16);

/** The suggested tip where a node has no eth_maxPriorityFeePerGas: 1 gwei. */
const DEFAULT_TIP = 1_000_000_000n;

interface RpcTxReceipt {
  status: string;
  blockNumber: string;
  blockHash: string;
  gasUsed: string;
  effectiveGasPrice?: string;
}

function toEthers(a: SignedAuthorization): Authorization {
  return {
    address: a.address,
    nonce: BigInt(a.nonce),
    chainId: BigInt(a.chainId),
    signature: Signature.from({ r: a.r, s: a.s, yParity: a.yParity }),
  };
}

export function evmNonceSending(rpc: RpcPool): NonceSending {
  let chainId: Promise<bigint> | undefined;
  const readChainId = () => {
    chainId ??= rpc.call<string>("eth_chainId", []).then((id) => BigInt(id));
    chainId.catch(() => (chainId = undefined));
    return chainId;
  };

  const sending: NonceSending = {
    signer(privateKey): TransactionSigner {
      const wallet = new Wallet(privateKey.startsWith("0x") ? privateKey : "0x" + privateKey);
      return {
        address: wallet.address.toLowerCase(),
        async sign(fields) {
          const list = fields.authorizations ?? [];
          const raw = await wallet.signTransaction({
            type: list.length > 0 ? 4 : 2,
            ...(list.length > 0 ? { authorizationList: list.map(toEthers) } : {}),
            chainId: await readChainId(),
            nonce: fields.nonce,
            to: fields.to,
            data: fields.data,
            value: fields.value,
            gasLimit: fields.gasLimit,
            maxFeePerGas: fields.maxFeePerGas,
            maxPriorityFeePerGas: fields.maxPriorityFeePerGas,
          });
          return { raw, hash: keccak256(raw).toLowerCase() };
        },
        async authorize(target, nonce) {
          // The chain's own id, never 0 (an authorization valid on every chain).
          const auth = wallet.authorizeSync({ address: target, nonce, chainId: await readChainId() });
          return {
            chainId: auth.chainId.toString(),
            address: auth.address.toLowerCase(),
            nonce: auth.nonce.toString(),
            r: auth.signature.r,
            s: auth.signature.s,
            yParity: auth.signature.yParity,
          };
        },
      };
    },

    async nonceOf(address, tag) {
      const at = typeof tag === "number" ? quantity(BigInt(tag)) : tag;
      return Number(BigInt(await rpc.call<string>("eth_getTransactionCount", [address, at])));
    },

    async fees() {
      const [block, tip] = await Promise.all([
        rpc.call<{ baseFeePerGas?: string } | null>("eth_getBlockByNumber", ["latest", false]),
        rpc.call<string>("eth_maxPriorityFeePerGas", []).then(BigInt, (error: unknown) => {
          if (error instanceof EvmRpcError && error.retryable) throw error;
          return DEFAULT_TIP;
        }),
      ]);
      return { baseFee: BigInt(block?.baseFeePerGas ?? "0x0"), tip };
    },

    async broadcast(raw): Promise<BroadcastResult> {
      try {
        await rpc.call<string>("eth_sendRawTransaction", [raw]);
        return { kind: "accepted" };
      } catch (error) {
        if (!(error instanceof EvmRpcError) || error.retryable) throw error;
        if (KNOWN.test(error.message)) return { kind: "accepted" };
        if (NONCE_USED.test(error.message)) return { kind: "nonce_used" };
        return { kind: "refused", message: error.message };
      }
    },

    async known(hash) {
      return (await rpc.call<unknown>("eth_getTransactionByHash", [hash])) !== null;
    },

    async receipt(hash): Promise<NonceReceipt | undefined> {
      const r = await rpc.call<RpcTxReceipt | null>("eth_getTransactionReceipt", [hash]);
      if (!r || !r.blockNumber) return undefined;
      return {
        blockNumber: Number(BigInt(r.blockNumber)),
        blockHash: r.blockHash.toLowerCase(),
        success: r.status === "0x1",
        gasUsed: BigInt(r.gasUsed),
        effectiveGasPrice: BigInt(r.effectiveGasPrice ?? "0x0"),
      };
    },

    async nativeBalance(address, atBlock) {
      const read = (tag: string) => rpc.call<string>("eth_getBalance", [address, tag]).then(BigInt);
      if (atBlock === undefined) return read("latest");
      return read(quantity(BigInt(atBlock))).catch((error: unknown) => {
        // A node that keeps recent state only (geth keeps 128 blocks) refuses an older block's.
        if (error instanceof EvmRpcError && !error.retryable) return read("latest");
        throw error;
      });
    },

    async tokenBalance(contract, holder, atBlock) {
      const data = ERC20.encodeFunctionData("balanceOf", [holder]);
      const at = atBlock === undefined ? "latest" : quantity(BigInt(atBlock));
      const raw = await rpc.call<string>("eth_call", [{ to: contract, data }, at]);
      if (typeof raw !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(raw))
        throw new Error(`${contract} answered balanceOf() with no number; is it an ERC-20 token?`);
      return BigInt(raw);
    },

    transferData(to, units) {
      return ERC20.encodeFunctionData("transfer", [to, units]).toLowerCase();
    },

    async estimateGas(call) {
      const tx: Record<string, string> = { from: call.from, to: call.to };
      if (call.data !== undefined) tx["data"] = call.data;
      if (call.value !== undefined) tx["value"] = quantity(call.value);
      return BigInt(await rpc.call<string>("eth_estimateGas", [tx]));
    },

    async code(address) {
      return (await rpc.call<string>("eth_getCode", [address, "latest"])).toLowerCase();
    },

    depositSigner(mnemonic, branch, index) {
      // m/44'/60'/0'/branch/index: the account the xpub (EVM_WALLET_XPUB) derives addresses from.
      const child = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(
        `m/44'/60'/0'/${branch}/${index}`,
      );
      if (!child.privateKey) throw new Error("the mnemonic derived no private key");
      const key = Buffer.from(child.privateKey).toString("hex");
      child.wipePrivateData();
      return sending.signer(key);
    },
  };
  return sending;
}
