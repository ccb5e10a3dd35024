#!/usr/bin/env node
// npm run devnet -- [--port 9090] [--host 127.0.0.1] [--block-time-ms 3000] [--solidify-after 19]
//                    [--faucet-key HEX] [--state-file path] [--quiet] [--extra-port P]...
//                    [--total-energy-limit N] [--total-energy-weight N] [--unfreeze-delay-ms N]
// npm run devnet -- --evm [--port 8545] [--host 127.0.0.1] [--chain-id 31337] [--block-time-ms 2000]
//                    [--finality-depth 64] [--state-file path] [--quiet]
import { parseArgs } from "node:util";
import { startDevnet, startEvmDevnet } from "./index.js";

const TRON_ONLY = [
  "solidify-after",
  "faucet-key",
  "extra-port",
  "total-energy-limit",
  "total-energy-weight",
  "unfreeze-delay-ms",
] as const;
const EVM_ONLY = ["chain-id", "finality-depth"] as const;

function int(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v)) {
    console.error(`devnet: --${name} must be a non-negative integer`);
    process.exit(2);
  }
  return Number(v);
}

function optionalInt(v: string | undefined, name: string): number | undefined {
  return v === undefined ? undefined : int(v, name, 0);
}

const { values } = parseArgs({
  options: {
    port: { type: "string" },
    host: { type: "string" },
    "block-time-ms": { type: "string" },
    "solidify-after": { type: "string" },
    "faucet-key": { type: "string" },
    "state-file": { type: "string" },
    quiet: { type: "boolean" },
    "extra-port": { type: "string", multiple: true },
    "total-energy-limit": { type: "string" },
    "total-energy-weight": { type: "string" },
    "unfreeze-delay-ms": { type: "string" },
    evm: { type: "boolean" },
    "chain-id": { type: "string" },
    "finality-depth": { type: "string" },
  },
});

for (const name of values.evm ? TRON_ONLY : EVM_ONLY) {
  if (values[name] !== undefined) {
    console.error(`devnet: --${name} ${values.evm ? "is for the TRON devnet, not --evm" : "needs --evm"}`);
    process.exit(2);
  }
}

let close: () => Promise<void>;
if (values.evm) {
  const finalityDepth = int(values["finality-depth"], "finality-depth", 64);
  if (finalityDepth % 2 !== 0) {
    console.error("devnet: --finality-depth must be even (Anvil finalizes latest - 2 × slots-in-an-epoch)");
    process.exit(2);
  }
  const chainId = int(values["chain-id"], "chain-id", 31337);
  if (chainId === 0) {
    console.error("devnet: --chain-id must be positive");
    process.exit(2);
  }
  const evm = await startEvmDevnet({
    port: int(values.port, "port", 8545),
    host: values.host ?? "127.0.0.1",
    chainId,
    blockTimeMs: int(values["block-time-ms"], "block-time-ms", 2000),
    finalityDepth,
    ...(values["state-file"] ? { stateFile: values["state-file"] } : {}),
    verbose: !(values.quiet ?? false),
  });
  console.log("devnet ready " + JSON.stringify(evm.readyInfo()));
  close = evm.close;
} else {
  close = await startTron();
}

async function startTron(): Promise<() => Promise<void>> {
  const devnet = await startDevnet({
    port: int(values.port, "port", 9090),
    host: values.host ?? "127.0.0.1",
    blockTimeMs: int(values["block-time-ms"], "block-time-ms", 3000),
    solidifyAfter: int(values["solidify-after"], "solidify-after", 19),
    faucetKey: values["faucet-key"],
    stateFile: values["state-file"],
    quiet: values.quiet ?? false,
    extraPorts: (values["extra-port"] ?? []).map((p) => int(p, "extra-port", 0)),
    totalEnergyLimit: optionalInt(values["total-energy-limit"], "total-energy-limit"),
    totalEnergyWeight: optionalInt(values["total-energy-weight"], "total-energy-weight"),
    unfreezeDelayMs: optionalInt(values["unfreeze-delay-ms"], "unfreeze-delay-ms"),
  });

  console.log(
    "devnet ready " +
      JSON.stringify({
        url: devnet.url,
        usdt_contract: devnet.usdtContract,
        faucet_address: devnet.faucetAddress,
        ...(devnet.listeners.length > 1 ? { extra_urls: devnet.listeners.slice(1).map((l) => l.url) } : {}),
      }),
  );
  return devnet.close;
}

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  close().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error("devnet: close failed", e);
      process.exit(1);
    },
  );
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
