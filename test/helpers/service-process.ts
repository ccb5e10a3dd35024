/**
 * A real `stablegate serve --role <role>` child process (tsx, the project's own entry), with its
 * output kept for assertions and for the message of a failed wait.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");

export interface ServiceProcess {
  role: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  exited: Promise<number | string | null>;
  /** true while the process runs. */
  alive(): boolean;
  /** SIGTERM, then the exit. */
  stop(): Promise<void>;
}

export function startServiceProcess(role: string, env: Record<string, string>): ServiceProcess {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "serve", "--role", role], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string | null>((done) =>
    child.once("exit", (code, signal) => done(code ?? signal)),
  );
  return {
    role,
    child,
    output: () => output,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
