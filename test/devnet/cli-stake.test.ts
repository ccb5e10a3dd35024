import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";

describe("devnet CLI stake flags", () => {
  it("takes --total-energy-limit, --total-energy-weight and --unfreeze-delay-ms", async () => {
    const args = [
      "--import",
      "tsx",
      "packages/devnet/src/cli.ts",
      "--port",
      "0",
      "--block-time-ms",
      "0",
      "--quiet",
      "--total-energy-limit",
      "90000000000",
      "--total-energy-weight",
      "9000000000",
      "--unfreeze-delay-ms",
      "60000",
    ];
    const child = spawn(process.execPath, args, { cwd: process.cwd(), stdio: ["ignore", "pipe", "inherit"] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        const rl = createInterface({ input: child.stdout });
        rl.once("line", resolve);
        child.once("exit", (code) => reject(new Error(`devnet exited with ${code}`)));
      });
      const { url } = JSON.parse(line.slice("devnet ready ".length)) as { url: string };
      const info = (await (await fetch(url + "/devnet/info")).json()) as { stake: unknown };
      expect(info.stake).toEqual({
        total_energy_limit: 90_000_000_000,
        total_energy_weight: 9_000_000_000,
        unfreeze_delay_ms: 60_000,
      });
      const params = (await (await fetch(url + "/wallet/getchainparameters")).json()) as {
        chainParameter: { key: string; value?: number }[];
      };
      const byKey = new Map(params.chainParameter.map((p) => [p.key, p.value]));
      expect(byKey.get("getTotalEnergyCurrentLimit")).toBe(90_000_000_000);
      expect(byKey.get("getUnfreezeDelayDays")).toBe(1);
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 30_000);
});
