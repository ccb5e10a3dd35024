/**
 * The embedded demo's memory (`npx tsx bench/memory-startup.ts --embedded`): `npm start`'s service
 * process (tsx, PGlite, the in-process devnet) in an empty DATA_DIR with nothing configured, this
 * checkout beside a same-run baseline (a clone of BENCH_BASELINE, default main, in a scratch
 * directory; no build and no PostgreSQL needed).
 *
 * The service runs as `npm start` runs it there: node with the Node flags its start script gives tsx,
 * and tsx's loader. For each checkout, in alternating order (BENCH_ROUNDS rounds, default 1):
 *   - start to the first healthy reply, then samples every 2 s until the resident memory settles:
 *     the samples of the last 40 s within 2 % (longer than the address deriver's idle stop, 30 s, so
 *     a thread still to end cannot pass for idle); a deadline of BENCH_SETTLE_S, 300 s, prints what
 *     it last saw;
 *   - RSS idle and its parts, read inside the process by bench/memory-probe.mjs after a full GC:
 *     the V8 heap, external and array buffers (without the WebAssembly heaps), PGlite's WebAssembly
 *     heap (resident pages, and its committed size: its Memory buffer's byteLength), and native (RSS
 *     minus those: the node binary, compiled code, malloc'd memory); the peak RSS (VmHWM);
 *   - the devnet's state, in a process of its own (bench/memory-devnet.ts): its heap after start-up
 *     and what each further block adds, as MB per day of the demo's 1 s blocks.
 * Then, in this checkout only, what the baseline-only WebAssembly compiler costs queries: an in-memory
 * PGlite with the embedded settings running 2,000 inserts and 500 aggregates
 * (bench/memory-pglite-cpu.mjs), with and without --liftoff-only, alternating, BENCH_ROUNDS + 1 each.
 * Goal: the service process under 300 MB RSS idle.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, "..");
const PROBE = pathToFileURL(join(here, "memory-probe.mjs")).href;
const MB = 1024 * 1024;
const GOAL_MB = 300;
const SAMPLE_MS = 2_000;
/** Samples over 40 s. */
const SETTLE_SAMPLES = 20;
const DEVNET_BLOCKS = 10_000;
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");

interface Sample {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  wasmHeaps: number;
  wasmCommitted: number;
  wasmResident: number;
}

interface DemoFigures {
  readyMs: number;
  settledS: number;
  settled: boolean;
  peak: number;
  idle: Sample;
}

interface DevnetFigures {
  startBytes: number;
  perBlockBytes: number;
  blocks: number;
  mineMs: number;
}

function git(args: string[], cwd = ROOT): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
}

/** A clone of ref at its commit, sharing this checkout's node_modules except its own workspace packages. */
function cloneBaseline(ref: string): { root: string; commit: string } {
  const commit = git(["rev-parse", "--short", ref]);
  const root = mkdtempSync(join(tmpdir(), "sg-mem-baseline-"));
  git([
    "clone",
    "--quiet",
    "--no-checkout",
    git(["rev-parse", "--path-format=absolute", "--git-common-dir"]),
    root,
  ]);
  git(["checkout", "--quiet", "--detach", commit], root);
  const modules = join(root, "node_modules");
  mkdirSync(join(modules, "@stablegate"), { recursive: true });
  for (const entry of readdirSync(join(ROOT, "node_modules"))) {
    if (entry !== "@stablegate") symlinkSync(join(ROOT, "node_modules", entry), join(modules, entry));
  }
  for (const pkg of readdirSync(join(root, "packages"))) {
    symlinkSync(join(root, "packages", pkg), join(modules, "@stablegate", pkg));
  }
  return { root, commit };
}

async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0) * 1024;
}

function ask(child: ChildProcess): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the probe did not answer within 30 s")), 30_000);
    child.once("message", (message) => {
      clearTimeout(timer);
      resolve(message as Sample);
    });
    child.send("sample");
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Node flags a checkout's `npm start` gives tsx (`tsx --flag ... src/main.ts serve`). */
function startFlags(root: string): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  const words = (scripts.start ?? "").split(/\s+/);
  const flags: string[] = [];
  for (const word of words.slice(words.indexOf("tsx") + 1)) {
    if (!word.startsWith("--")) break;
    flags.push(word);
  }
  return flags;
}

/** `npm start`'s service process in an empty DATA_DIR, sampled until its memory settles. */
async function measureDemo(root: string): Promise<DemoFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), "sg-bench-demo-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const began = performance.now();
  const args = [...startFlags(root), "--import", "tsx", "--import", PROBE, "src/main.ts", "serve"];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? tmpdir(),
      NODE_ENV: "development",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      PORT: String(port),
    },
    stdio: ["ignore", "ignore", "pipe", "ipc"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  try {
    let readyMs = 0;
    while (readyMs === 0) {
      if (child.exitCode !== null) throw new Error(`npm start's service exited: ${stderr}`);
      if (performance.now() - began > 180_000) throw new Error(`not healthy after 180 s: ${stderr}`);
      try {
        if ((await fetch(`${url}/api/v1/health/live`)).status === 200) readyMs = performance.now() - began;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    const settleMs = Number(process.env.BENCH_SETTLE_S ?? 300) * 1000;
    const samples: Sample[] = [];
    const healthyAt = performance.now();
    let settled = false;
    while (!settled) {
      await sleep(SAMPLE_MS);
      samples.push(await ask(child));
      const last = samples.slice(-SETTLE_SAMPLES).map((s) => s.rss);
      settled =
        last.length === SETTLE_SAMPLES && Math.max(...last) - Math.min(...last) <= 0.02 * Math.max(...last);
      if (!settled && performance.now() - healthyAt > settleMs) {
        console.log(
          `  not settled after ${settleMs / 1000} s; last RSS samples: ${last.slice(-5).map(mb).join(", ")} (taking the last)`,
        );
        break;
      }
    }
    return {
      readyMs,
      settledS: (performance.now() - healthyAt) / 1000,
      settled,
      peak: peakRss(child.pid as number),
      idle: samples[samples.length - 1] as Sample,
    };
  } finally {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function measureDevnet(root: string): DevnetFigures {
  const dir = mkdtempSync(join(tmpdir(), "sg-bench-devnet-"));
  try {
    const out = execFileSync(
      process.execPath,
      [
        "--import",
        "tsx",
        join(here, "memory-devnet.ts"),
        root,
        String(DEVNET_BLOCKS),
        join(dir, "state.json"),
      ],
      { cwd: root, encoding: "utf8" },
    );
    return JSON.parse(out.trim().split("\n").pop() as string) as DevnetFigures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function describe(label: string, demo: DemoFigures, devnet: DevnetFigures): string {
  const s = demo.idle;
  const otherExternal = Math.max(0, s.external - s.wasmCommitted);
  const native = s.rss - s.heapTotal - otherExternal - s.wasmResident;
  const perDay = (devnet.perBlockBytes * 86_400) / MB;
  return (
    `${label}: first healthy reply after ${Math.round(demo.readyMs)} ms, ` +
    `${demo.settled ? "settled" : "NOT settled"} ${Math.round(demo.settledS)} s later (load ${load()})\n` +
    `  RSS idle ${mb(s.rss)} (peak ${mb(demo.peak)}) = V8 heap ${mb(s.heapTotal)} (used ${mb(s.heapUsed)})` +
    ` + external and array buffers ${mb(otherExternal)} (array buffers ${mb(s.arrayBuffers)})` +
    ` + PGlite WebAssembly heap ${mb(s.wasmResident)} resident (${mb(s.wasmCommitted)} committed,` +
    ` ${s.wasmHeaps} heap${s.wasmHeaps === 1 ? "" : "s"}) + native ${mb(native)}\n` +
    `  devnet (own process): ${mb(devnet.startBytes)} of V8 heap after start-up, ` +
    `${Math.round(devnet.perBlockBytes)} bytes per further block held ` +
    `(${perDay.toFixed(1)} MB per day of 1 s blocks; ${devnet.blocks} blocks in ${Math.round(devnet.mineMs)} ms)`
  );
}

interface QueryCost {
  cpuMs: number;
  wallMs: number;
}

async function compareWasmTiers(rounds: number): Promise<void> {
  const { pgliteStartParams, WASM_BASELINE_FLAG } = await import("../src/db/pglite-bounds.js");
  const { PGlite } = await import("@electric-sql/pglite");
  const params = JSON.stringify(pgliteStartParams(PGlite.defaultStartParams));
  const run = (flags: string[]) =>
    JSON.parse(
      execFileSync(process.execPath, [...flags, join(here, "memory-pglite-cpu.mjs"), params], {
        cwd: ROOT,
        encoding: "utf8",
      }),
    ) as QueryCost;
  const tiers: Record<"baseline" | "both", QueryCost[]> = { baseline: [], both: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["baseline", "both"] as const) : (["both", "baseline"] as const);
    for (const tier of order) tiers[tier].push(run(tier === "baseline" ? [WASM_BASELINE_FLAG] : []));
  }
  const show = (costs: QueryCost[]) =>
    costs.map((c) => `${Math.round(c.cpuMs)} ms CPU (${Math.round(c.wallMs)} ms wall)`).join("; ");
  console.log(
    `PGlite, 2,000 inserts + 500 aggregates: ${WASM_BASELINE_FLAG} ${show(tiers.baseline)}\n` +
      `  with the optimising tier: ${show(tiers.both)} (load ${load()})`,
  );
}

export async function runEmbedded(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
  const ref = process.env.BENCH_BASELINE ?? "main";
  console.log(`load average at start: ${load()} (2 cores shared with other work: figures are noisy)`);
  const baseline = cloneBaseline(ref);
  const current = { root: ROOT, commit: `${git(["rev-parse", "--short", "HEAD"])}+worktree` };
  const runs: Record<"baseline" | "current", { demo: DemoFigures; devnet: DevnetFigures }[]> = {
    baseline: [],
    current: [],
  };
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (["baseline", "current"] as const) : (["current", "baseline"] as const);
      for (const which of order) {
        const tree = which === "baseline" ? baseline : current;
        const demo = await measureDemo(tree.root);
        const devnet = measureDevnet(tree.root);
        runs[which].push({ demo, devnet });
        console.log(
          describe(
            `npm start, ${which} (${which === "baseline" ? ref : "this checkout"} ${tree.commit})`,
            demo,
            devnet,
          ),
        );
      }
    }
  } finally {
    rmSync(baseline.root, { recursive: true, force: true });
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  };
  const idle = (which: "baseline" | "current") => median(runs[which].map((r) => r.demo.idle.rss));
  const peak = (which: "baseline" | "current") => median(runs[which].map((r) => r.demo.peak));
  await compareWasmTiers(rounds + 1);
  const now = idle("current");
  console.log(
    `RSS idle, median of ${rounds}: ${mb(now)} against ${mb(idle("baseline"))} on ${ref} ` +
      `(peak ${mb(peak("current"))} against ${mb(peak("baseline"))})\n` +
      `   goal < ${GOAL_MB} MB: ${now < GOAL_MB * MB ? "met" : "MISSED"}`,
  );
}

if (!existsSync(join(ROOT, "node_modules"))) throw new Error("run npm install first");
