/**
 * The embedded demo chain: with TRON_NETWORK=devnet and no TRON_NODE_URL, `npm start` runs the devnet
 * in-process before the context is created, then reloads the configuration with TRON_NODE_URL and
 * USDT_CONTRACT pointing at it. The chain is saved in DATA_DIR/devnet-state.json, so the demo chain
 * (and the payments on it) survive a restart; DATA_DIR/devnet.json tells `npm run demo:pay` where
 * the devnet listens.
 *
 * With SWEEP_MODE=delegate the demo's hot wallet also stakes TRX for energy and bandwidth
 * (stakeHotWallet), so a sweep costs only the activation of its fresh address.
 *
 * Timings: blocks every DEVNET_BLOCK_TIME_MS (1 s by default) and solidification
 * min(DEVNET_SOLIDIFY_AFTER, CONFIRMATIONS - 1) blocks behind the head, so the solidified check
 * never makes a payment wait longer than its confirmations: with the defaults (19 confirmations)
 * a payment is detected within about a second of its block and confirmed about 19 s later.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Devnet } from "@stablegate/devnet";
import type { Config } from "../../config.js";
import { addressFromPrivateKey } from "@stablegate/tron/address";
import { createNodeClient } from "@stablegate/tron/node-client";
import { signTransaction } from "@stablegate/tron/sign";
import { buildFreezeBalanceV2 } from "@stablegate/tron/transaction";

export const DEVNET_STATE_FILE = "devnet-state.json";
export const DEVNET_INFO_FILE = "devnet.json";

export interface EmbeddedDevnetInfo {
  url: string;
  usdt_contract: string;
  faucet_address: string;
  pid: number;
}

/**
 * true when start-up must run the devnet itself: TRON is enabled, on the devnet, without a node. A
 * deployment whose CHAINS leaves TRON out runs no TRON node (each process would otherwise start
 * one, all writing the same DATA_DIR state file).
 */
export function needsEmbeddedDevnet(config: Config): boolean {
  return (
    config.chains.includes("tron") && config.tronNetwork === "devnet" && config.tronNodeUrl === undefined
  );
}

export function embeddedSolidifyAfter(config: Config): number {
  return Math.max(0, Math.min(config.devnet.solidifyAfter, config.confirmations - 1));
}

export async function startEmbeddedDevnet(
  config: Config,
  onWarning: (message: string) => void = () => undefined,
): Promise<Devnet> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const stateFile = join(config.dataDir, DEVNET_STATE_FILE);
  // Loaded here, not at the top: production processes (a real TRON node) never load the devnet.
  const { startDevnet } = await import("@stablegate/devnet");
  const start = () =>
    startDevnet({
      port: 0,
      host: "127.0.0.1",
      blockTimeMs: config.devnet.blockTimeMs,
      solidifyAfter: embeddedSolidifyAfter(config),
      stateFile,
      quiet: true,
    });
  let devnet: Devnet;
  try {
    devnet = await start();
  } catch (error) {
    if (!existsSync(stateFile)) throw error;
    // An unreadable demo chain is set aside and a new one starts; the scanner re-syncs to it.
    const aside = `${stateFile}.unreadable-${Date.now()}`;
    renameSync(stateFile, aside);
    onWarning(`devnet state could not be loaded (${(error as Error).message}); moved to ${aside}`);
    devnet = await start();
  }
  if (config.hotWalletAddress) await fundHotWallet(devnet.url, config.hotWalletAddress);
  if (config.hotWalletPrivateKey && config.sweepMode === "delegate") {
    await stakeHotWallet(devnet.url, config.hotWalletPrivateKey);
  }
  const info: EmbeddedDevnetInfo = {
    url: devnet.url,
    usdt_contract: devnet.usdtContract,
    faucet_address: devnet.faucetAddress,
    pid: process.pid,
  };
  const file = join(config.dataDir, DEVNET_INFO_FILE);
  writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  return {
    ...devnet,
    async close() {
      await devnet.close();
      rmSync(file, { force: true });
    },
  };
}

const HOT_WALLET_DEMO_TRX = 10_000;

/**
 * The demo's hot wallet pays sweep fees on the devnet: top it up from the faucet when it holds less
 * than a tenth of HOT_WALLET_DEMO_TRX, so `npm start` + `npm run demo:pay` also shows the sweep.
 */
async function fundHotWallet(url: string, address: string): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(url + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`devnet ${path} answered ${response.status}`);
    return (await response.json()) as { balance?: number };
  };
  const account = await post("/wallet/getaccount", { address, visible: true });
  if ((account.balance ?? 0) >= (HOT_WALLET_DEMO_TRX / 10) * 1_000_000) return;
  await post("/devnet/fund", { address, trx: String(HOT_WALLET_DEMO_TRX) });
}

/** What the demo stakes in delegate mode: energy for about 13 sweeps at once, and bandwidth. */
export const DEMO_STAKE_ENERGY_TRX = 120_000n;
export const DEMO_STAKE_BANDWIDTH_TRX = 10_000n;

/**
 * Delegate mode on the demo chain (DESIGN.md 7b): the hot wallet stakes TRX for energy, which the
 * sweeper lends each sweep, and for bandwidth, so its own delegate and undelegate transactions cost
 * nothing either. Done once: a wallet that already stakes is left as it is. Signed here with the
 * hot wallet's key, like every other transaction of ours.
 */
export async function stakeHotWallet(
  url: string,
  hotKey: string,
  amounts: { energyTrx: bigint; bandwidthTrx: bigint } = {
    energyTrx: DEMO_STAKE_ENERGY_TRX,
    bandwidthTrx: DEMO_STAKE_BANDWIDTH_TRX,
  },
): Promise<void> {
  const client = createNodeClient({ baseUrl: url });
  try {
    const owner = addressFromPrivateKey(hotKey);
    const account = await client.getAccount(owner);
    if ((account?.frozenV2 ?? []).some((f) => (f.amount ?? 0) > 0)) return;
    const need = (amounts.energyTrx + amounts.bandwidthTrx + 1_000n) * 1_000_000n;
    if (BigInt(account?.balance ?? 0) < need) {
      await fetch(`${url}/devnet/fund`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ address: owner, trx: (need / 1_000_000n).toString() }),
      });
    }
    for (const [resource, trx] of [
      ["ENERGY", amounts.energyTrx],
      ["BANDWIDTH", amounts.bandwidthTrx],
    ] as const) {
      const head = await client.getNowBlock();
      const raw = head.block_header.raw_data;
      // The node judges the transaction's expiry by its own block times (the wall clock).
      const ref = { number: raw.number ?? 0, hash: head.blockID, timestamp: raw.timestamp ?? Date.now() };
      const tx = buildFreezeBalanceV2({
        owner,
        amount: trx * 1_000_000n,
        resource,
        refBlock: ref,
        nowMs: ref.timestamp,
      });
      await client.broadcastTransaction(signTransaction(tx, hotKey));
    }
  } finally {
    await client.close();
  }
}

/** The environment overrides that point the configuration at a running devnet. */
export function devnetEnv(devnet: Devnet): Record<string, string> {
  return { TRON_NODE_URL: devnet.url, USDT_CONTRACT: devnet.usdtContract };
}
