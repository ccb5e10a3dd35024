/**
 * A process killed with SIGKILL after storing its transactions and before any broadcast reached the
 * node (an RPC proxy holds every eth_sendRawTransaction): a restarted worker's outbox sends the
 * stored bytes, and each transfer lands once. Real processes, PostgreSQL (a throwaway cluster), Anvil.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/connection.js";
import { migrate } from "../../src/db/migrate.js";
import { evmDevnetForFile } from "../helpers/evm-devnet.js";
import { createPgCluster, type PgCluster } from "../helpers/pg-cluster.js";
import { poll } from "../helpers/poll.js";
import { balanceOf, ETH, nonceOf, randomAddress } from "./outbox-helpers.js";

const SCRIPT = fileURLToPath(new URL("./outbox-process.ts", import.meta.url));
const devnet = evmDevnetForFile();
let cluster: PgCluster;
let dbUrl: string;
let proxy: Server;
let proxyUrl: string;
const held: string[] = [];
const children: ChildProcess[] = [];

/** Forwards JSON-RPC to Anvil, but holds every eth_sendRawTransaction without an answer. */
function startHoldingProxy(target: string): Promise<Server> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (body.includes('"eth_sendRawTransaction"')) {
        held.push(body);
        return;
      }
      void fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body })
        .then(async (r) =>
          res.writeHead(r.status, { "content-type": "application/json" }).end(await r.text()),
        )
        .catch(() => res.writeHead(502).end());
    });
  });
  return new Promise((done) => server.listen(0, "127.0.0.1", () => done(server)));
}

function spawnOutbox(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT], {
    env: { ...process.env, DATABASE_URL: dbUrl, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  children.push(child);
  return { child, output: () => output };
}

async function rows(): Promise<{ ref: string; nonce: string; state: string; tx_hash: string }[]> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const result = await client.query(
      "SELECT ref, nonce::text AS nonce, state, tx_hash FROM evm_transactions ORDER BY nonce",
    );
    return result.rows as { ref: string; nonce: string; state: string; tx_hash: string }[];
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  cluster = await createPgCluster({ databases: ["stablegate"] });
  dbUrl = cluster.url("stablegate");
  const database = await openDatabase({ databaseUrl: dbUrl, poolSize: 1 });
  await migrate(database);
  await database.close();
  proxy = await startHoldingProxy(devnet().rpcUrl);
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  proxy?.closeAllConnections();
  proxy?.close();
  await cluster?.destroy();
}, 60_000);

describe("the EVM outbox across a SIGKILL", () => {
  it("re-sends the stored bytes after a kill between storing and broadcasting: each lands once", async () => {
    const key = randomBytes(32).toString("hex");
    const to = randomAddress();
    const transfers = [1n, 2n, 3n].map((n) => ({ ref: `kill-${n}`, to, value: (n * ETH).toString() }));
    const submitter = spawnOutbox({
      MODE: "submit",
      RPC_URL: proxyUrl,
      HOT_KEY: key,
      SUBMIT: JSON.stringify(transfers),
    });
    const stored = await poll("three stored transactions, their broadcasts held", rows, {
      until: (r) => r.length === 3 && held.length === 3,
      timeoutMs: 60_000,
      describe: submitter.output,
    });
    const hot = JSON.parse(held[0] as string) as { params: [string] };
    expect(hot.params[0]).toMatch(/^0x02/);
    expect(stored.map((r) => r.state)).toEqual(["signed", "signed", "signed"]);
    submitter.child.kill("SIGKILL");
    await new Promise((done) => submitter.child.once("exit", done));
    expect(submitter.output()).not.toContain("submitted");
    // Nothing reached the node: the sender's account is untouched.
    const address = await poll("the sender's address", async () => {
      const [first] = stored;
      const tx = first
        ? await devnet().rpc<{ from: string } | null>("eth_getTransactionByHash", [first.tx_hash])
        : null;
      return tx === null ? "unknown" : tx.from;
    });
    expect(address).toBe("unknown");
    await devnet().rpc("anvil_setBalance", [
      "0x" + (await senderOf(key)).slice(2),
      "0x" + (100n * ETH).toString(16),
    ]);

    const worker = spawnOutbox({ MODE: "worker", RPC_URL: devnet().rpcUrl, HOT_KEY: key });
    await poll("every transfer included", rows, {
      until: (r) => r.length === 3 && r.every((x) => x.state === "included" || x.state === "final"),
      between: () => devnet().mine(),
      timeoutMs: 60_000,
      describe: worker.output,
    });
    const after = await rows();
    // The same bytes (same hashes, same nonces) landed: never re-signed under a new nonce.
    expect(after.map((r) => [r.nonce, r.tx_hash])).toEqual(stored.map((r) => [r.nonce, r.tx_hash]));
    expect(await balanceOf(devnet(), to)).toBe(6n * ETH);
    expect(await nonceOf(devnet(), await senderOf(key))).toBe(3);
    worker.child.kill("SIGKILL");
  }, 180_000);
});

async function senderOf(key: string): Promise<string> {
  const { computeAddress } = await import("ethers");
  return computeAddress("0x" + key).toLowerCase();
}
