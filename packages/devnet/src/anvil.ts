// Runs Anvil (the registry's @foundry-rs/anvil binary) as a child whose lifetime is bound to ours.
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { dirname } from "node:path";

const PLATFORM_PACKAGES: Record<string, string> = {
  "linux-x64": "@foundry-rs/anvil-linux-amd64/bin/anvil",
  "linux-arm64": "@foundry-rs/anvil-linux-arm64/bin/anvil",
  "darwin-x64": "@foundry-rs/anvil-darwin-amd64/bin/anvil",
  "darwin-arm64": "@foundry-rs/anvil-darwin-arm64/bin/anvil",
  "win32-x64": "@foundry-rs/anvil-win32-amd64/bin/anvil.exe",
};

/** The Anvil binary of this platform, from @foundry-rs/anvil's optional platform package. */
export function anvilBinary(): string {
  const key = `${process.platform}-${process.arch}`;
  const bin = PLATFORM_PACKAGES[key];
  if (!bin) throw new Error(`@foundry-rs/anvil has no binary for ${key}`);
  // The platform package is a dependency of @foundry-rs/anvil: resolve it from there, wherever npm put it.
  const wrapper = createRequire(import.meta.url).resolve("@foundry-rs/anvil/package.json");
  return createRequire(dirname(wrapper) + "/").resolve(bin);
}

/**
 * A POSIX shell between us and Anvil. Anvil cannot watch its parent, so the guard does: it reads
 * its stdin (a pipe from this process) until end of file, which comes when this process closes it
 * or dies in any way (SIGKILL included, the kernel closes the pipe), and then stops Anvil. When
 * Anvil exits on its own, the guard exits with its status. `read` is a shell builtin, so killing
 * the watcher leaves no process behind.
 */
const GUARD = [
  "exec 3<&0",
  '"$@" </dev/null &',
  "a=$!",
  'echo "anvil-pid $a"',
  '{ while read -r _ <&3; do :; done; kill -TERM "$a" 2>/dev/null; } &',
  "w=$!",
  'wait "$a"',
  "s=$?",
  'kill "$w" 2>/dev/null',
  'exit "$s"',
].join("\n");

export interface AnvilProcess {
  child: ChildProcess;
  /** Anvil's own process id (the guard's child), when known. */
  pid: number | undefined;
  port: number;
  /** Closes the guard's stdin (Anvil stops) and resolves once the guard exited. */
  stop(timeoutMs?: number): Promise<void>;
}

/** Starts Anvil with `args` and resolves once it listens, with the port it bound (`--port 0` = any). */
export function spawnAnvil(args: string[], log: (line: string) => void): Promise<AnvilProcess> {
  const bin = anvilBinary();
  const child =
    process.platform === "win32"
      ? spawn(bin, args, { stdio: ["pipe", "pipe", "pipe"], windowsHide: true })
      : spawn("/bin/sh", ["-c", GUARD, "anvil-guard", bin, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let tail = "";
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  child.stderr?.on("data", (chunk: Buffer) => {
    keep(chunk);
    for (const line of chunk.toString().split("\n")) if (line.trim()) log(`anvil: ${line}`);
  });
  let pid: number | undefined = process.platform === "win32" ? child.pid : undefined;

  const stop = async (timeoutMs = 10_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (process.platform === "win32") child.kill();
    else child.stdin?.end();
    const timer = setTimeout(() => {
      if (pid !== undefined) killQuietly(pid);
      child.kill("SIGKILL");
    }, timeoutMs);
    await exited;
    clearTimeout(timer);
  };

  return new Promise<AnvilProcess>((resolve, reject) => {
    let done = false;
    const onData = (chunk: Buffer): void => {
      keep(chunk);
      const text = tail;
      const pidMatch = /^anvil-pid (\d+)$/m.exec(text);
      if (pidMatch) pid = Number(pidMatch[1]);
      const listening = /Listening on \S*:(\d+)/.exec(text);
      if (listening && !done) {
        done = true;
        resolve({
          child,
          get pid() {
            return pid;
          },
          port: Number(listening[1]),
          stop,
        });
      }
    };
    // Anvil logs every request on stdout: keep reading so its pipe never fills.
    child.stdout?.on("data", onData);
    child.once("error", (error) => {
      if (!done) {
        done = true;
        reject(error);
      }
    });
    void exited.then((code) => {
      if (!done) {
        done = true;
        reject(new Error(`anvil exited with ${code} before listening:\n${tail}`));
      }
    });
  });
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}
