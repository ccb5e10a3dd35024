import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";

describe("devnet CLI", () => {
  it("prints one `devnet ready {json}` line, serves the API and exits cleanly on SIGTERM", async () => {
    // node --import tsx is what `npm run devnet` (tsx packages/devnet/src/cli.ts) runs, minus the npm wrapper that would
    // swallow the signal.
    const args = [
      "--import",
      "tsx",
      "packages/devnet/src/cli.ts",
      "--port",
      "0",
      "--block-time-ms",
      "0",
      "--solidify-after",
      "2",
      "--quiet",
    ];
    const child = spawn(process.execPath, args, {
      cwd: process.cwd(),
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        const rl = createInterface({ input: child.stdout });
        rl.once("line", resolve);
        child.once("exit", (code) => reject(new Error(`devnet exited with ${code}`)));
      });
      expect(line).toMatch(/^devnet ready \{/);
      const ready = JSON.parse(line.slice("devnet ready ".length)) as {
        url: string;
        usdt_contract: string;
        faucet_address: string;
      };
      expect(ready.usdt_contract).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      // the documented default faucet key
      expect(ready.faucet_address).toBe("TYBNgWfhGuNzdLtjKtxXTfskAhTbMcqbaG");
      const head = (await (await fetch(ready.url + "/wallet/getnowblock")).json()) as { blockID: string };
      expect(head.blockID).toMatch(/^[0-9a-f]{64}$/);
      const info = (await (await fetch(ready.url + "/devnet/info")).json()) as {
        usdt_contract: string;
        solidify_after: number;
      };
      expect(info).toMatchObject({ usdt_contract: ready.usdt_contract, solidify_after: 2 });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 30_000);

  it("--extra-port serves the same chain on more listeners, listed in the ready line", async () => {
    const args = [
      "--import",
      "tsx",
      "packages/devnet/src/cli.ts",
      "--port",
      "0",
      "--block-time-ms",
      "0",
      "--quiet",
    ];
    const child = spawn(process.execPath, [...args, "--extra-port", "0", "--extra-port", "0"], {
      cwd: process.cwd(),
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        const rl = createInterface({ input: child.stdout });
        rl.once("line", resolve);
        child.once("exit", (code) => reject(new Error(`devnet exited with ${code}`)));
      });
      const ready = JSON.parse(line.slice("devnet ready ".length)) as { url: string; extra_urls: string[] };
      expect(ready.extra_urls).toHaveLength(2);
      const ids = await Promise.all(
        [ready.url, ...ready.extra_urls].map(async (u) => {
          const block = (await (await fetch(u + "/wallet/getnowblock")).json()) as { blockID: string };
          return block.blockID;
        }),
      );
      expect(new Set(ids).size).toBe(1);
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 30_000);
});
