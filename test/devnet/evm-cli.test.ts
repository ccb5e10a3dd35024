/**
 * `stablegate-devnet --evm` as a real process: the ready line, its flags, and Anvil's lifetime
 * bound to the devnet's (a SIGKILLed devnet leaves no Anvil behind).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { poll } from "../helpers/poll.js";

const started: ChildProcess[] = [];

function devnetProcess(args: string[]): ChildProcess {
  // node --import tsx is what `npm run devnet` runs, minus the npm wrapper that would swallow signals.
  const child = spawn(process.execPath, ["--import", "tsx", "packages/devnet/src/cli.ts", "--evm", ...args], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  return child;
}

async function readyLine(child: ChildProcess): Promise<string> {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`devnet exited with ${code}: ${stderr}`)));
  });
}

async function exitOf(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, stderr };
}

/** Every process below `pid` (Linux /proc), children first. */
function descendants(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  if (!existsSync(file)) return [];
  const children = readFileSync(file, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  return children.flatMap((c) => [c, ...descendants(c)]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

async function rpc(url: string, method: string): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: [] }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

afterEach(() => {
  for (const child of started.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

describe("stablegate-devnet --evm", () => {
  it("prints exactly one ready line with the contract's fields and exits cleanly on SIGTERM", async () => {
    const child = devnetProcess([
      "--port",
      "0",
      "--chain-id",
      "1337",
      "--block-time-ms",
      "200",
      "--finality-depth",
      "2",
      "--quiet",
    ]);
    const line = await readyLine(child);
    expect(line).toMatch(/^devnet ready \{.*\}$/);
    const ready = JSON.parse(line.slice("devnet ready ".length)) as Record<string, unknown>;
    expect(Object.keys(ready).sort()).toEqual([
      "chain_id",
      "faucet_address",
      "faucet_private_key",
      "rpc_url",
      "usdc_contract",
      "usdt18_contract",
      "usdt_contract",
    ]);
    expect(ready).toMatchObject({
      chain_id: 1337,
      usdt_contract: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      faucet_address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    });
    const url = ready.rpc_url as string;
    expect(Number(await rpc(url, "eth_chainId"))).toBe(1337);
    // Anvil's own interval mining makes blocks (200 ms here); nothing else mines.
    const first = Number(await rpc(url, "eth_blockNumber"));
    await poll(
      "two more blocks",
      async () => (Number(await rpc(url, "eth_blockNumber")) >= first + 2 ? true : undefined),
      { timeoutMs: 15_000 },
    );
    const more: string[] = [];
    child.stdout?.on("data", (chunk: Buffer) => more.push(chunk.toString()));
    const anvil = descendants(child.pid!);
    expect(anvil.length).toBeGreaterThan(0);
    const exited = exitOf(child);
    child.kill("SIGTERM");
    expect((await exited).code).toBe(0);
    expect(more.join("")).toBe("");
    await poll("Anvil gone after SIGTERM", async () => (anvil.every((p) => !alive(p)) ? true : undefined), {
      timeoutMs: 10_000,
      describe: () => `alive: ${anvil.filter(alive).join(" ")}`,
    });
  }, 60_000);

  it("leaves no Anvil behind when the devnet is killed with SIGKILL", async () => {
    const child = devnetProcess(["--port", "0", "--block-time-ms", "0", "--quiet"]);
    const ready = JSON.parse((await readyLine(child)).slice("devnet ready ".length)) as { rpc_url: string };
    expect(Number(await rpc(ready.rpc_url, "eth_blockNumber"))).toBe(1);
    const below = descendants(child.pid!);
    expect(below.length).toBeGreaterThan(0);
    child.kill("SIGKILL");
    await poll("Anvil and its guard gone", async () => (below.every((p) => !alive(p)) ? true : undefined), {
      timeoutMs: 10_000,
      describe: () => `still alive: ${below.filter(alive).join(" ")}`,
    });
    await expect(rpc(ready.rpc_url, "eth_blockNumber")).rejects.toThrow();
  }, 60_000);

  it("refuses an odd finality depth and TRON-only flags, before starting anything", async () => {
    for (const args of [
      ["--finality-depth", "3"],
      ["--solidify-after", "2"],
      ["--chain-id", "0"],
    ]) {
      const { code, stderr } = await exitOf(devnetProcess(["--port", "0", ...args]));
      expect(code, args.join(" ")).toBe(2);
      expect(stderr).toMatch(/^devnet: --(finality-depth|solidify-after|chain-id) /);
    }
  }, 60_000);
});
