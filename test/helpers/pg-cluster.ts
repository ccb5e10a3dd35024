/**
 * A throwaway PostgreSQL cluster for tests and benchmarks that stop and start the server itself:
 * initdb and pg_ctl from the server binaries (/usr/lib/postgresql/<version>/bin or PG_BIN_DIR) in a
 * temporary directory, on a free port, listening on 127.0.0.1 only. initdb refuses to run as root,
 * so as root every command runs as the `postgres` user (runuser) in a directory it owns.
 * Missing binaries are an error, never a skip: CI machines have them.
 */
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

export interface PgCluster {
  readonly port: number;
  readonly dir: string;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  start(): Promise<void>;
  /** pg_ctl stop -m <mode>: "immediate" is a crash (no shutdown checkpoint, clients cut off). */
  stop(mode?: "fast" | "immediate" | "smart"): Promise<void>;
  /**
   * Sends `signal` to the postmaster and all its children: SIGSTOP freezes the server (connections
   * stay open, nothing answers, as behind a cut network), SIGCONT thaws it.
   */
  signal(signal: "SIGSTOP" | "SIGCONT"): void;
  /** Stops the server if it runs and removes the directory. */
  destroy(): Promise<void>;
}

export function findPgBinDir(): string {
  const candidates = process.env.PG_BIN_DIR
    ? [process.env.PG_BIN_DIR]
    : existsSync("/usr/lib/postgresql")
      ? readdirSync("/usr/lib/postgresql")
          .sort((a, b) => Number(b) - Number(a))
          .map((version) => join("/usr/lib/postgresql", version, "bin"))
      : [];
  const found = candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
  if (!found) {
    throw new Error(
      "PostgreSQL server binaries (initdb, pg_ctl) not found in /usr/lib/postgresql/*/bin; install the " +
        "postgresql package or set PG_BIN_DIR. This test stops a real server and cannot run without them.",
    );
  }
  return found;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function passwdUid(name: string): { uid: number; gid: number } | undefined {
  try {
    const line = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((entry) => entry.startsWith(`${name}:`));
    if (!line) return undefined;
    const [, , uid, gid] = line.split(":");
    return { uid: Number(uid), gid: Number(gid) };
  } catch {
    return undefined;
  }
}

export async function createPgCluster(options: { databases?: string[] } = {}): Promise<PgCluster> {
  const bin = findPgBinDir();
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? passwdUid("postgres") : undefined;
  if (asRoot && !owner) throw new Error("running as root needs a `postgres` user to run initdb as");
  const dir = mkdtempSync(join(tmpdir(), "sg-pgcluster-"));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, "data");
  const port = await freePort();
  const exec = async (tool: string, args: string[]) => {
    const [file, argv] = asRoot
      ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]]
      : [join(bin, tool), args];
    try {
      return await run(file, argv, { cwd: dir, timeout: 120_000 });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`${tool} ${args.join(" ")} failed: ${String(error)}\n${stdout ?? ""}\n${stderr ?? ""}`);
    }
  };
  await exec("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
  const serverOptions = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c fsync=off",
    "-c full_page_writes=off",
    "-c max_connections=100",
    "-c shared_buffers=32MB",
  ].join(" ");
  let running = false;
  const cluster: PgCluster = {
    port,
    dir,
    url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      await exec("pg_ctl", [
        "-D",
        data,
        "-l",
        join(dir, "server.log"),
        "-o",
        serverOptions,
        "-w",
        "-t",
        "60",
        "start",
      ]);
      running = true;
    },
    async stop(mode = "fast") {
      await exec("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
      running = false;
    },
    signal(signal) {
      const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
      const children = readdirSync("/proc")
        .filter((entry) => /^\d+$/.test(entry))
        .filter((pid) => {
          try {
            // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so split after ')'.
            const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
            return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster;
          } catch {
            return false;
          }
        })
        .map(Number);
      for (const pid of [postmaster, ...children]) process.kill(pid, signal);
    },
    async destroy() {
      try {
        // A frozen server would never stop.
        if (running) cluster.signal("SIGCONT");
      } catch {
        // not running
      }
      if (running) await cluster.stop("immediate").catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  for (const database of options.databases ?? []) {
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${database}"`);
    } finally {
      await admin.end();
    }
  }
  return cluster;
}
