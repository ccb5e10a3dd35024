// In-process devnet: a local TRON node serving the java-tron HTTP API (see README.md).
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { toBase58 } from "@stablegate/tron/address";
import { Chain, DEFAULT_FAUCET_KEY } from "./chain.js";
import type { ControlCtx } from "./control-api.js";
import { Faults } from "./faults.js";
import { createDevnetServer } from "./http.js";
import { LoadGenerator } from "./load.js";
import { ChainLog, loadChain, writeSnapshot } from "./persist.js";
import type { StakeParams } from "./stake.js";

export { DEFAULT_FAUCET_KEY };

export interface DevnetOptions {
  /** 0 = a free port. */
  port?: number;
  host?: string;
  /** A block every this many ms; 0 = only on demand (/devnet/mine or mine()). */
  blockTimeMs?: number;
  /** The solidified head trails the head by this many blocks. */
  solidifyAfter?: number;
  /** Hex private key of the faucet (1e9 TRX and 1e9 USDT at genesis). */
  faucetKey?: string;
  /**
   * Load the chain from this file at start, and append every block to it as it is made (an
   * append-only log, see persist.ts; fsync'd every few seconds and on close).
   */
  stateFile?: string;
  /** No log lines. */
  quiet?: boolean;
  /** getTotalEnergyCurrentLimit: energy per 24 h shared by all stake (default mainnet's 180e9). */
  totalEnergyLimit?: number;
  /**
   * TotalEnergyWeight before devnet accounts stake: whole TRX staked for energy by the rest of the
   * network (default 19e9). Each devnet FreezeBalanceV2 for energy adds to it. An account's energy
   * limit is frozen_for_energy / 1e6 × totalEnergyLimit / TotalEnergyWeight.
   */
  totalEnergyWeight?: number;
  /** UnfreezeBalanceV2 → WithdrawExpireUnfreeze delay in ms (default 14 days, as mainnet). */
  unfreezeDelayMs?: number;
  /**
   * More listeners on the same chain (0 = a free port), on `host`: each has its own faults and
   * request counters (POST /devnet/faults sent to it), e.g. `lag_blocks` for a node that fell behind.
   */
  extraPorts?: number[];
}

/** One HTTP listener of the devnet: the main one (listeners[0]) or an extra one. */
export interface DevnetListener {
  url: string;
  port: number;
  /** Stops listening and cuts its connections: clients get connection refused (a node that died). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

export interface Devnet {
  url: string;
  /** base58 */
  usdtContract: string;
  /** base58 */
  faucetAddress: string;
  faucetKey: string;
  /** Every listener, the main one (`url`) first, then one per extra port. */
  listeners: DevnetListener[];
  /** Mines n (default 1) blocks now; returns the new head number. */
  mine(n?: number): number;
  /** Moves the chain's clock forward by ms and mines one block stamped with the new time. */
  advanceClock(ms: number): number;
  close(): Promise<void>;
}

function stakeParams(opts: DevnetOptions): Partial<StakeParams> {
  const out: Partial<StakeParams> = {};
  const positive = (v: number | undefined, name: string): number | undefined => {
    if (v === undefined) return undefined;
    if (!Number.isSafeInteger(v) || v <= 0) throw new RangeError(`${name} must be a positive integer`);
    return v;
  };
  const limit = positive(opts.totalEnergyLimit, "totalEnergyLimit");
  const weight = positive(opts.totalEnergyWeight, "totalEnergyWeight");
  if (limit !== undefined) out.totalEnergyLimit = limit;
  if (weight !== undefined) out.totalEnergyWeight = weight;
  if (opts.unfreezeDelayMs !== undefined) {
    if (!Number.isSafeInteger(opts.unfreezeDelayMs) || opts.unfreezeDelayMs < 0)
      throw new RangeError("unfreezeDelayMs must be a non-negative integer");
    out.unfreezeDelayMs = opts.unfreezeDelayMs;
  }
  return out;
}

export async function startDevnet(opts: DevnetOptions = {}): Promise<Devnet> {
  const host = opts.host ?? "127.0.0.1";
  const blockTimeMs = opts.blockTimeMs ?? 3000;
  const solidifyAfter = opts.solidifyAfter ?? 19;
  const log = opts.quiet ? () => {} : (m: string) => console.error(m);

  const stake = stakeParams(opts);
  const loaded = opts.stateFile ? loadChain(opts.stateFile, solidifyAfter, stake) : null;
  let chain = loaded?.chain;
  if (!chain) {
    chain = new Chain({ faucetKey: opts.faucetKey ?? DEFAULT_FAUCET_KEY, solidifyAfter, stake });
    chain.initGenesis();
  } else {
    // A chain whose clock was advanced keeps its time across restarts.
    chain.clockOffsetMs = Math.max(0, chain.lastTimestamp - Date.now());
  }
  const c = chain;
  let chainLog: ChainLog | undefined;
  if (opts.stateFile) {
    if (!loaded || loaded.rewrite) writeSnapshot(c, opts.stateFile);
    chainLog = new ChainLog(c, opts.stateFile, log);
  }

  const shared = { chain: c, load: new LoadGenerator(c), blockTimeMs };
  const servers: Server[] = [];
  const listeners: DevnetListener[] = [];
  const urlHost = host.includes(":") ? `[${host}]` : host;
  try {
    for (const wanted of [opts.port ?? 0, ...(opts.extraPorts ?? [])]) {
      const ctx: ControlCtx = { ...shared, faults: new Faults(), counters: { total: 0, byPath: new Map() } };
      const server = createDevnetServer(ctx, log);
      servers.push(server);
      await listen(server, wanted, host);
      listeners.push(listenerOf(server, (server.address() as AddressInfo).port, host, urlHost));
    }
  } catch (error) {
    await Promise.all(servers.map((s) => closeServer(s)));
    chainLog?.close();
    throw error;
  }
  const timer = blockTimeMs > 0 ? setInterval(() => c.mine(1), blockTimeMs) : null;
  timer?.unref();

  let closed = false;
  return {
    url: (listeners[0] as DevnetListener).url,
    listeners,
    usdtContract: toBase58(c.usdt.address),
    faucetAddress: toBase58(c.faucet),
    faucetKey: c.faucetKey,
    mine: (n = 1) => {
      c.mine(n);
      return c.head.number;
    },
    advanceClock: (ms) => c.advanceClock(ms).number,
    close: async () => {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      await Promise.all(servers.map((s) => closeServer(s)));
      chainLog?.close();
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
}

function listenerOf(server: Server, port: number, host: string, urlHost: string): DevnetListener {
  return {
    url: `http://${urlHost}:${port}`,
    port,
    stop: () => closeServer(server),
    start: () => (server.listening ? Promise.resolve() : listen(server, port, host)),
  };
}

export {
  startEvmDevnet,
  EVM_FAUCET_ADDRESS,
  EVM_FAUCET_PRIVATE_KEY,
  type EvmDevnet,
  type EvmDevnetOptions,
  type EvmReadyInfo,
} from "./evm.js";
export {
  EVM_SWEEPER_ARTIFACT,
  DELEGATION_PREFIX,
  SWEEPER_SELECTORS,
  delegationCode,
  sweepCalldata,
  sweeperDeployData,
  sweeperRuntimeCode,
  type EvmSweeperArtifact,
} from "./evm-sweeper.js";
