/**
 * The chain boundary: what the domain (scanner, confirmer, address pool, payments, strays) needs
 * of a chain, and nothing of how the chain provides it. One family implements it per folder
 * (src/chains/tron/, src/chains/evm/); the registry (registry.ts) holds one instance per enabled
 * chain on the context (ctx.chains).
 *
 * Designed for both families:
 *  - TRON reads a block at a time (its header, then its transaction infos) and its final chain is
 *    the solidified head (walletsolidity/getnowblock).
 *  - EVM reads Transfer logs over block ranges (eth_getLogs, the range shrunk when a provider
 *    refuses it) and its final chain is the `finalized` block tag, or N confirmations where the
 *    chain is configured so.
 * Both answer a range as one promise per block, in block order, so the scanner links and applies
 * blocks in chain order while later ones are still arriving, and checks every block's parent hash
 * against the block before it whatever the family.
 */
import type { Logger } from "../logger.js";
import type { RetryTiming } from "./backoff.js";
import type { ChainFamilyName, ChainId, Currency } from "./chain-types.js";

/** One token the chain watches. */
export interface TokenConfig {
  currency: Currency;
  /** The contract, in the chain's stored address form. */
  contract: string;
  /** The contract's decimals (6 for TRON USDT, 18 for BSC's tokens). */
  decimals: number;
}

/** How a family writes addresses. */
export interface AddressFormat {
  /** True for a well-formed address of this family, checksum included where it has one. */
  isValid(address: string): boolean;
  /** The form the database stores and compares (TRON: base58; EVM: lowercase 0x hex), or undefined. */
  normalise(address: string): string | undefined;
  /** The form shown to people (TRON: base58; EVM: EIP-55 checksummed). */
  display(stored: string): string;
  /** The format in words, for a refusal ("base58check, starting with T"). */
  readonly rule: string;
  /** The stored-form address of a secp256k1 private key (hex, without 0x) on this family. */
  fromPrivateKey(privateKeyHex: string): string;
}

/** Branch 0: the order pool's addresses; branch 1: static deposit addresses. */
export type DerivationBranch = 0 | 1;

/** Deposit addresses from the account-level xpub: public derivation, no private key. */
export interface AddressDerivation {
  /** The address at `index` of `branch`, at once (one address: a static deposit address). */
  deriveAddress(xpub: string, index: number, branch: DerivationBranch): string;
  /** Indexes from .. from + count - 1 of `branch`; large batches off the event loop. */
  deriveAddresses(xpub: string, from: number, count: number, branch?: DerivationBranch): Promise<string[]>;
  /** Which implementation derives here, and why not the fastest one. */
  backend(): { backend: string; reason?: string };
}

/** A block as the scanner links it. */
export interface BlockHeader {
  number: number;
  /** Lowercase hex, without 0x. */
  hash: string;
  parentHash: string;
  /** Unix ms. */
  timestamp: number;
}

/** A block number and hash: a cursor, a proven final block. */
export interface BlockRef {
  number: number;
  hash: string;
}

/**
 * A successful token transfer as the chain recorded it: a Transfer log of a watched token in a
 * transaction that succeeded, with a value above zero. The amount is in the token's units with its
 * decimals; token-units.ts turns it into micro-units. Addresses are in the stored form.
 */
export interface TokenTransfer {
  txHash: string;
  /** Position of the log, unique with txHash. */
  logIndex: number;
  blockNumber: number;
  blockHash: string;
  /** Unix ms. */
  blockTimestamp: number;
  currency: Currency;
  from: string;
  to: string;
  units: bigint;
  decimals: number;
}

/** One block of a range: its header and its watched-token transfers (to any address). */
export interface ReadBlock {
  header: BlockHeader;
  transfers: TokenTransfer[];
}

/** The head as read from a node; a family may keep what it fetched with it for readBlocks. */
export type ChainHead = BlockHeader;

export interface CallOptions {
  signal: AbortSignal;
  log: Logger;
  /** Backoff of retryable node errors (a block is never skipped: they are retried until aborted). */
  retry?: RetryTiming | undefined;
}

export interface ReadOptions extends CallOptions {
  /** Node calls in flight. */
  concurrency: number;
  /** The head this pass read, when the range ends at it. */
  head?: ChainHead | undefined;
}

/** What a node says of a transaction. */
export type TransactionStatus =
  { state: "unknown" } | { state: "included"; blockNumber: number; success: boolean; final: boolean };

export type NodeState = "healthy" | "failing" | "lagging";

/** One configured node (or RPC endpoint) as this process sees it. */
export interface NodeStatus {
  /** Position in the configured list (0 = preferred). */
  index: number;
  /** scheme://host:port only: paths and queries may hold provider keys. */
  name: string;
  state: NodeState;
  /** Calls now go to this node. */
  active: boolean;
  head: number | null;
  /** ISO time the head was reported. */
  headAt: string | null;
  /** Blocks behind the best head of the last comparison. */
  lag: number | null;
  calls: number;
  errors: number;
  lastError: string | null;
  /** ISO time the node is tried again (set aside only). */
  retryAt: string | null;
}

export interface HeadObservation {
  number: number;
  /** When it was observed (ms), on the context's clock. */
  at: number;
}

/** A devnet's faucet: sandbox payments. Present only where the chain runs on a devnet. */
export interface Faucet {
  /** A real signed transfer of `micro` micro-units from the faucet to `to`, broadcast, not mined. */
  pay(to: string, currency: Currency, micro: bigint): Promise<{ txHash: string; from: string }>;
}

/** The EIP-1559 fields of one transaction to sign; amounts in the chain's smallest native unit. */
export interface NonceTxFields {
  nonce: number;
  /** Stored form. */
  to: string;
  /** Hex call data, "0x" for none. */
  data: string;
  value: bigint;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** EIP-7702 authorizations: present and not empty, the transaction is signed as type 4. */
  authorizations?: readonly SignedAuthorization[] | undefined;
}

/**
 * An EIP-7702 authorization as signed by the delegating account: its code becomes a pointer to
 * `address` once a type-4 transaction carrying it lands (the account's nonce must then be `nonce`).
 * Numbers as decimal strings, so it stores as JSON.
 */
export interface SignedAuthorization {
  chainId: string;
  /** Stored form. */
  address: string;
  nonce: string;
  r: string;
  s: string;
  yParity: 0 | 1;
}

/** A signed transaction: the exact bytes to broadcast and their hash (lowercase 0x hex). */
export interface SignedTransaction {
  raw: string;
  hash: string;
}

/** One sending account's key, held inside the family: it signs and never shows the key. */
export interface TransactionSigner {
  /** Stored form. */
  readonly address: string;
  sign(fields: NonceTxFields): Promise<SignedTransaction>;
  /** This account's EIP-7702 authorization to delegate to `target` at its nonce `nonce`, for this chain only. */
  authorize(target: string, nonce: number): Promise<SignedAuthorization>;
}

/**
 * What a node said to a broadcast: taken (or already known), the nonce is already used on the chain,
 * or refused for another reason (its message, without the node's URL).
 */
export type BroadcastResult =
  { kind: "accepted" } | { kind: "nonce_used" } | { kind: "refused"; message: string };

export interface NonceReceipt {
  blockNumber: number;
  blockHash: string;
  success: boolean;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
}

/**
 * Sending on a chain whose accounts count nonces (EVM): what the transaction outbox
 * (src/outbox/) needs. Each call is one attempt: node errors are thrown to the caller.
 */
export interface NonceSending {
  /** A signer for a 32-byte hex private key (with or without 0x). */
  signer(privateKey: string): TransactionSigner;
  /** The account's transaction count at the newest block (`latest`), at a block number, or with the node's pool (`pending`). */
  nonceOf(address: string, tag: "latest" | "pending" | number): Promise<number>;
  /** The newest block's base fee and the node's suggested priority fee. */
  fees(): Promise<{ baseFee: bigint; tip: bigint }>;
  broadcast(raw: string): Promise<BroadcastResult>;
  /** True when the node has the transaction, in its pool or in a block. */
  known(hash: string): Promise<boolean>;
  receipt(hash: string): Promise<NonceReceipt | undefined>;
  /**
   * The account's native balance (wei) at the newest block, or at block `atBlock` where given (at
   * the newest block when the node no longer holds that block's state).
   */
  nativeBalance(address: string, atBlock?: number): Promise<bigint>;
  /**
   * An ERC-20 balance in the token's own units at the newest block, or at block `atBlock` where
   * given (`contract` in stored form).
   */
  tokenBalance(contract: string, holder: string, atBlock?: number): Promise<bigint>;
  /**
   * The call data of ERC-20 `transfer(to, units)`. Nothing relies on its returned bool (Ethereum's
   * USDT returns none): success is the receipt's status and the Transfer log.
   */
  transferData(to: string, units: bigint): string;
  /** The gas the node estimates for a call from `from` (one attempt). */
  estimateGas(call: { from: string; to: string; data?: string; value?: bigint }): Promise<bigint>;
  /**
   * The signer of a deposit address's own key, derived from the wallet mnemonic on `branch` at
   * `index` (the same path as `derivation` derives its address publicly): sweeps sign with it.
   */
  depositSigner(mnemonic: string, branch: DerivationBranch, index: number): TransactionSigner;
  /** The account's code at the newest block ("0x" for none; `0xef0100 ‖ target` when delegated). */
  code(address: string): Promise<string>;
}

/** One enabled chain. */
export interface Chain {
  readonly id: ChainId;
  readonly family: ChainFamilyName;
  /** The network's name (`mainnet`, a testnet's, `devnet`), as SPEC's `network` field shows it. */
  readonly network: string;
  /**
   * The currencies the deployment takes on this chain: one per configured token, known before the
   * tokens' contracts are deployed (a devnet) or their decimals read. Orders in any other currency
   * are refused (UNSUPPORTED_CURRENCY).
   */
  readonly currencies: readonly Currency[];
  /** The watched tokens; empty until a devnet has started and deployed them. */
  readonly tokens: readonly TokenConfig[];
  /**
   * The watched tokens with their decimals, read from the chain first where they are not known yet
   * (an EVM chain reads them lazily: a worker that never scans has none until this is called).
   */
  loadTokens(): Promise<readonly TokenConfig[]>;
  readonly address: AddressFormat;
  readonly derivation: AddressDerivation;
  /** Only on a devnet. */
  readonly faucet: Faucet | undefined;
  /** Signing and sending by nonce (EVM); undefined where the chain has no account nonces (TRON). */
  readonly nonces?: NonceSending | undefined;

  /** The newest block (node errors retried until the signal aborts). */
  head(options: CallOptions): Promise<ChainHead>;
  /** The newest block's number, one attempt (health checks and alerts bound it with a timeout). */
  headNumber(): Promise<number>;
  /**
   * Blocks from .. to (inclusive): one promise per block, in order. A block whose answers disagree
   * (the node reorganised between two calls) fails with InconsistentBlockError (read again).
   */
  readBlocks(from: number, to: number, options: ReadOptions): Promise<ReadBlock>[];
  /** The hash of block n on the node's chain now, or undefined when it has none. */
  blockHash(n: number, options: CallOptions): Promise<string | undefined>;
  /**
   * The newest final block: one that can no longer be reorganised away. TRON: the solidified head;
   * EVM: the `finalized` tag, or head - N + 1 where the chain counts confirmations.
   */
  finalHead(options: CallOptions): Promise<BlockRef>;
  /** The hash of block n in the final chain, or undefined when it is not final (yet). */
  finalBlockHash(n: number, options: CallOptions): Promise<string | undefined>;
  /**
   * Where a transaction stands, read from the chain's own record (one attempt: node errors are
   * thrown to the caller).
   */
  transactionStatus(txHash: string): Promise<TransactionStatus>;
  /**
   * The watched-token transfers of a transaction as the final chain records them, or undefined
   * when the transaction is not final (one attempt).
   */
  finalTransfers(txHash: string): Promise<TokenTransfer[] | undefined>;

  /**
   * What a payer's wallet scans to pay `micro` micro-units of `currency` to `to` (stored form).
   * TRON: the address itself, as TRON wallets scan it; EVM: the EIP-681 transfer request
   * `ethereum:<token>@<chain id>/transfer?address=<to>&uint256=<token units>`. One attempt: node
   * errors (an EVM chain reads its chain id and the token's decimals once) are thrown.
   */
  paymentUri(currency: Currency, to: string, micro: bigint): Promise<string>;

  /** The head as last seen by anyone in this process (scanner or health probe). */
  observeHead(number: number, at?: number): void;
  lastHead(): HeadObservation | undefined;
  /**
   * The final chain last read came from a fallback depth of confirmations because the chain's own
   * finality signal stalled (an EVM chain's `finalized` tag; never on TRON).
   */
  finalityFallback(): boolean;
  /** The configured nodes as this process sees them. */
  nodes(): NodeStatus[];
  /** Only a fallback node answers (the preferred one is set aside). */
  degraded(): boolean;
  close(): Promise<void>;
}

/** The node's answers for one block disagree (it reorganised between two calls): fetch again. */
export class InconsistentBlockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InconsistentBlockError";
  }
}
