/**
 * The in-process devnet's share of the embedded demo's memory, in a process of its own (run by
 * bench/memory-startup.ts --embedded, once per checkout): the V8 heap its chain holds after start-up,
 * and what each further block adds (the slope after a warm-up), as `npm start` runs it (a state file, blocks every second,
 * solidified 18 blocks behind). Prints one JSON line.
 *
 *   node --import tsx bench/memory-devnet.ts <checkout root> <blocks> <state file>
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { startDevnet as StartDevnet } from "@stablegate/devnet";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const [root, blocksArg, stateFile] = process.argv.slice(2) as [string, string, string];
const blocks = Number(blocksArg);
const devnetModule = pathToFileURL(join(root, "packages", "devnet", "src", "index.ts")).href;
const { startDevnet } = (await import(devnetModule)) as { startDevnet: typeof StartDevnet };

const bare = heapUsed();
const devnet = await startDevnet({ blockTimeMs: 0, solidifyAfter: 18, stateFile, quiet: true });
const started = heapUsed();
// In steps, as the demo mines them (one block each second, read by the scanner as it goes); the
// first fifth warms the paths up, so the slope over the rest is what a block adds.
const mine = async (count: number) => {
  for (let i = 0; i < count; i += 100) {
    const head = devnet.mine(100);
    await fetch(`${devnet.url}/wallet/getblockbynum`, {
      method: "POST",
      body: JSON.stringify({ num: head }),
    });
  }
};
const warmup = Math.floor(blocks / 5);
await mine(warmup);
const warm = heapUsed();
const began = performance.now();
await mine(blocks - warmup);
const mineMs = performance.now() - began;
const after = heapUsed();
await devnet.close();
process.stdout.write(
  `${JSON.stringify({ startBytes: started - bare, perBlockBytes: (after - warm) / (blocks - warmup), blocks, mineMs })}\n`,
);
