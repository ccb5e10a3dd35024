/** Spawns test/webhooks/worker-process.ts as a real child process (tsx) against PostgreSQL. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("./worker-process.ts", import.meta.url));

export interface WorkerProcess {
  child: ChildProcess;
  /** Resolves with the exit code or signal once the process is gone. */
  exited: Promise<string>;
  stop(): Promise<string>;
}

export async function spawnWorker(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: { ...process.env, DATABASE_URL: databaseUrl, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<string>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? String(code))),
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start: ${stderr}`)), 20_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((how) => reject(new Error(`worker exited (${how}) before ready: ${stderr}`)));
  });
  return {
    child,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
