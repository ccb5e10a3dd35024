/**
 * The packages as a merchant installs them: `npm pack` of @stablegate/sdk,
 * @stablegate/tron and @stablegate/devnet (prepack builds dist/), each tarball installed into a
 * scratch project in the OS temp directory, outside the repository, with `npm install` and nothing
 * else. Then, with plain `node` (no tsx, nothing of the repository on the module path):
 *
 * - the SDK project holds the SDK alone; the shop.mjs of docs/sdk.md, copied as printed, creates a
 *   payment against a running Stablegate (startService, role all, PGlite, embedded devnet), has it
 *   paid, and verifies the real webhook the service signs and sends; verifyWebhook also accepts a
 *   body signed by the server's signing code and refuses it altered; its declarations compile with
 *   skipLibCheck off;
 * - the devnet project holds the devnet, the toolkit, the toolkit's npm dependencies and Anvil
 *   (@foundry-rs/anvil) only; `npx stablegate-devnet` starts as a real process and TronWeb (the
 *   test's own copy) pays USDT on it; `npx stablegate-devnet --evm` starts Anvil from the installed
 *   package with the tokens deployed, and ethers (the test's own copy) pays USDT on it.
 *
 * The tarball sizes and the installed footprints are printed (they go in the issue note).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Contract, JsonRpcProvider, Wallet } from "ethers";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_FAUCET_KEY } from "@stablegate/devnet";
import { loadConfig } from "../../src/config.js";
import { startService, type RunningService } from "../../src/server.js";
import { signWebhookBody } from "../../src/webhooks/signature.js";
import { TEST_ADMIN_PASSWORD } from "../helpers/config.js";
import { createTestDatabase, type TestDatabase } from "../helpers/db.js";
import { poll } from "../helpers/poll.js";

const ROOT = resolve(import.meta.dirname, "../..");
const SCRATCH = mkdtempSync(join(tmpdir(), "stablegate-pack-"));
const WEBHOOK_SECRET = "demo-webhook-secret";
/** What the server brings in; none of it may reach a merchant's node_modules. */
const SERVER_DEPENDENCIES = [
  "fastify",
  "pg",
  "drizzle-orm",
  "@electric-sql/pglite",
  "react",
  "react-dom",
  "pino",
  "zod",
  "jose",
  "helmet",
  "prom-client",
  "vite",
  "tsx",
  "typescript",
  "tronweb",
  "stablegate",
];

interface Packed {
  name: string;
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

let packed: Map<string, Packed & { path: string }>;
let service: RunningService | undefined;
let testDb: TestDatabase | undefined;
let baseUrl: string;
const children: ChildProcess[] = [];
const footprints: { project: string; packages: number; bytes: number }[] = [];

/** The environment without npm's own variables (set when the suite runs under `npm test`). */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== "NODE_OPTIONS" && key !== "INIT_CWD") env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs a command to its end without blocking the event loop (the service runs in this process). */
function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = cleanEnv(),
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", fail);
    child.once("exit", (code) => done({ code, stdout, stderr }));
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** A scratch project outside the repository with `tarballs` installed, as a merchant would. */
async function project(name: string, tarballs: string[]): Promise<string> {
  const dir = join(SCRATCH, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }, null, 2));
  // --prefer-offline: the toolkit's dependencies come from the npm cache `npm ci` filled.
  const install = await run(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs],
    dir,
  );
  expect(install.code, install.stdout + install.stderr).toBe(0);
  return dir;
}

/** Every package installed in a project, from npm's own record of node_modules. */
function installed(dir: string): string[] {
  const lock = JSON.parse(readFileSync(join(dir, "node_modules/.package-lock.json"), "utf8")) as {
    packages: Record<string, unknown>;
  };
  return Object.keys(lock.packages)
    .map((path) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length))
    .sort();
}

/** Bytes on disk of the files under `dir` (symlinks not followed). */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? bytesUnder(path) : lstatSync(path).size;
  }
  return total;
}

function recordFootprint(name: string, dir: string): void {
  footprints.push({
    project: name,
    packages: installed(dir).length,
    bytes: bytesUnder(join(dir, "node_modules")),
  });
}

beforeAll(async () => {
  const tarballs = join(SCRATCH, "tarballs");
  mkdirSync(tarballs);
  const pack = await run(
    "npm",
    [
      "pack",
      "--json",
      "--pack-destination",
      tarballs,
      "-w",
      "@stablegate/tron",
      "-w",
      "@stablegate/sdk",
      "-w",
      "@stablegate/devnet",
    ],
    ROOT,
  );
  expect(pack.code, pack.stdout + pack.stderr).toBe(0);
  const list = JSON.parse(pack.stdout.slice(pack.stdout.indexOf("["))) as Packed[];
  packed = new Map(list.map((p) => [p.name, { ...p, path: join(tarballs, p.filename) }]));

  // The service as `npm start` runs it (PGlite in DATA_DIR, or PostgreSQL with TEST_DATABASE_URL).
  if (process.env.TEST_DATABASE_URL) testDb = await createTestDatabase({ poolSize: 2 });
  const port = await freePort();
  const env: Record<string, string> = {
    NODE_ENV: "development",
    DATA_DIR: join(SCRATCH, "service-data"),
    PORT: String(port),
    ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    LOG_LEVEL: "silent",
    CONFIRMATIONS: "3",
    DEVNET_BLOCK_TIME_MS: "250",
    ...(testDb?.url ? { DATABASE_URL: testDb.url } : {}),
  };
  service = await startService(loadConfig(env), "all", { env });
  baseUrl = `http://127.0.0.1:${port}`;
}, 300_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.pid) process.kill(-child.pid, "SIGKILL");
  await service?.stop();
  await testDb?.drop().catch(() => undefined);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
  for (const p of packed?.values() ?? []) {
    console.log(
      `tarball ${p.filename}: ${kb(p.size)} packed, ${kb(p.unpackedSize)} unpacked, ${p.entryCount} files`,
    );
  }
  for (const f of footprints) {
    console.log(`installed ${f.project}: node_modules ${kb(f.bytes)} in ${f.packages} packages`);
  }
  rmSync(SCRATCH, { recursive: true, force: true });
}, 60_000);

describe("the tarballs", () => {
  it("hold the compiled package, its README and the license, and no sources", () => {
    expect([...packed.keys()].sort()).toEqual(["@stablegate/devnet", "@stablegate/sdk", "@stablegate/tron"]);
    for (const p of packed.values()) {
      const files = p.files.map((f) => f.path);
      for (const needed of ["package.json", "README.md", "LICENSE", "dist/index.js", "dist/index.d.ts"]) {
        expect(files, `${p.name} lacks ${needed}`).toContain(needed);
      }
      // The devnet also ships the Solidity sources of its EVM contracts (compiled into dist/evm-tokens.js
      // and dist/evm-sweeper-artifact.js).
      const shipped = (f: string) =>
        f.startsWith("dist/") ||
        ["package.json", "README.md", "LICENSE"].includes(f) ||
        (p.name === "@stablegate/devnet" && /^contracts\/\w+\.sol$/.test(f));
      expect(
        files.filter((f) => !shipped(f)),
        p.name,
      ).toEqual([]);
      expect(
        files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")),
        p.name,
      ).toEqual([]);
    }
    const devnetFiles = packed.get("@stablegate/devnet")?.files.map((f) => f.path);
    expect(devnetFiles).toContain("dist/cli.js");
    expect(devnetFiles).toContain("dist/evm-tokens.js");
    expect(devnetFiles).toContain("contracts/TetherToken.sol");
    expect(devnetFiles).toContain("dist/evm-sweeper.js");
    expect(devnetFiles).toContain("dist/evm-sweeper-artifact.js");
    expect(devnetFiles).toContain("contracts/Sweeper.sol");
  });
});

describe("@stablegate/sdk installed from its tarball", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await project("shop", [packed.get("@stablegate/sdk")!.path]);
    recordFootprint("@stablegate/sdk", dir);
  }, 120_000);

  it("pulls in nothing: the SDK is the only package in node_modules", () => {
    expect(installed(dir)).toEqual(["@stablegate/sdk"]);
    for (const name of SERVER_DEPENDENCIES) expect(installed(dir)).not.toContain(name);
  });

  it("verifies a body signed by the server's signing code and refuses it altered", async () => {
    const body = JSON.stringify({
      event: "payment.confirmed",
      order_id: "o-1",
      amount_received: "25.500000",
    });
    writeFileSync(
      join(dir, "verify.mjs"),
      [
        'import { verifyWebhook } from "@stablegate/sdk";',
        "const { BODY, SIGNATURE, SECRET } = process.env;",
        "const headers = { 'x-signature': SIGNATURE, 'x-timestamp': String(Math.floor(Date.now() / 1000)) };",
        "const good = verifyWebhook(BODY, headers, SECRET);",
        "const altered = verifyWebhook(BODY.replace('25.5', '99.5'), headers, SECRET);",
        "const wrongSecret = verifyWebhook(BODY, headers, SECRET + 'x');",
        "console.log(JSON.stringify({ good: good.ok, event: good.ok ? good.payload.event : null, altered: altered.ok, wrongSecret: wrongSecret.ok }));",
      ].join("\n"),
    );
    const result = await run(
      process.execPath,
      ["verify.mjs"],
      dir,
      cleanEnv({ BODY: body, SIGNATURE: signWebhookBody(WEBHOOK_SECRET, body), SECRET: WEBHOOK_SECRET }),
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      good: true,
      event: "payment.confirmed",
      altered: false,
      wrongSecret: false,
    });
  });

  it("runs docs/sdk.md's shop.mjs as printed: a payment created, paid, its real webhook verified", async () => {
    const login = await fetch(`${baseUrl}/api/v1/admin/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: TEST_ADMIN_PASSWORD }),
    });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const created = await fetch(`${baseUrl}/api/v1/admin/merchants`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ name: "Tarball Shop", webhook_secret: WEBHOOK_SECRET }),
    });
    expect(created.status).toBe(201);
    const { api_key: apiKey } = (await created.json()) as { api_key: string };

    const doc = readFileSync(resolve(ROOT, "docs/sdk.md"), "utf8");
    const script = /```js\n(\/\/ shop\.mjs\n[\s\S]*?)```/.exec(doc)?.[1];
    expect(script, "docs/sdk.md has the shop.mjs block").toBeDefined();
    expect(script).toContain('from "@stablegate/sdk"');
    writeFileSync(join(dir, "shop.mjs"), script as string);
    const result = await run(
      process.execPath,
      ["shop.mjs"],
      dir,
      cleanEnv({ STABLEGATE_URL: baseUrl, STABLEGATE_API_KEY: apiKey, PORT: String(await freePort()) }),
    );
    const output = result.stdout + result.stderr;
    expect(result.code, output).toBe(0);
    expect(output).toMatch(/^created [0-9a-f-]{36}: 25\.500000 USDT to T\w{33}$/m);
    expect(output).toMatch(/^paid: order-\d+ received 25\.500000 USDT \(tx [0-9a-f]{64}\)$/m);
    expect(output).toMatch(
      /^webhook evt_[0-9a-f-]{36}_payment\.confirmed_\d+ verified: payment\.confirmed$/m,
    );
    expect(output).toMatch(/^order order-\d+ is completed$/m);
  }, 180_000);

  it("type-checks a merchant's TypeScript against its declarations with skipLibCheck off", async () => {
    writeFileSync(
      join(dir, "check.ts"),
      [
        'import { createClient, StablegateError, verifyWebhook, type WebhookEvent } from "@stablegate/sdk";',
        'const client = createClient({ baseUrl: "http://127.0.0.1:3000", apiKey: "sg_test_x" });',
        'const input = { external_id: "o-1", amount: "1.5", currency: "USDT" } as const;',
        "const pending: Promise<{ id: string; amount_expected: string }> = client.createPayment({",
        "  ...input,",
        '  callback_url: "https://shop.example.com/hook",',
        "});",
        "// The declarations are real types, not any: a payment without its callback_url does not compile.",
        "// @ts-expect-error callback_url is required",
        "void client.createPayment(input);",
        "export const checks = [pending, StablegateError, verifyWebhook];",
        "export type Event = WebhookEvent;",
      ].join("\n"),
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
          typeRoots: [join(ROOT, "node_modules/@types")],
        },
        files: ["check.ts"],
      }),
    );
    const tsc = await run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", dir], dir);
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
  }, 120_000);
});

describe("@stablegate/devnet installed from its tarball (with the toolkit's)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await project("chain", [
      packed.get("@stablegate/tron")!.path,
      packed.get("@stablegate/devnet")!.path,
    ]);
    recordFootprint("@stablegate/devnet + @stablegate/tron", dir);
  }, 120_000);

  it("pulls in only the devnet, the toolkit, the toolkit's own dependencies and Anvil", () => {
    const names = installed(dir);
    expect(names).toContain("@stablegate/devnet");
    expect(names).toContain("@stablegate/tron");
    const tronDependencies = Object.keys(
      (
        JSON.parse(readFileSync(join(dir, "node_modules/@stablegate/tron/package.json"), "utf8")) as {
          dependencies: Record<string, string>;
        }
      ).dependencies,
    );
    const allowed = (name: string) =>
      name.startsWith("@stablegate/") ||
      tronDependencies.includes(name) ||
      name.startsWith("@noble/") ||
      name.startsWith("@scure/") ||
      name.startsWith("@foundry-rs/anvil");
    expect(names.filter((name) => !allowed(name))).toEqual([]);
    for (const name of SERVER_DEPENDENCIES) expect(names).not.toContain(name);
  });

  /** `npx stablegate-devnet ...args` in the project; resolves with the ready line's JSON. */
  async function startInstalled<T>(
    args: string[],
    deadline: number,
  ): Promise<{ ready: T; output: () => string }> {
    const child = spawn("npx", ["stablegate-devnet", ...args], {
      cwd: dir,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    children.push(child);
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await poll(
      'the "devnet ready" line or an exit',
      () => /^devnet ready \{.*\}$/m.test(output) || child.exitCode !== null,
      { timeoutMs: Math.max(1, deadline - Date.now()), describe: () => `output so far:\n${output}` },
    );
    if (!/^devnet ready \{.*\}$/m.test(output))
      throw new Error(`no "devnet ready" line (exit ${child.exitCode}); output so far:\n${output}`);
    return {
      ready: JSON.parse(/^devnet ready (\{.*\})$/m.exec(output)?.[1] as string) as T,
      output: () => output,
    };
  }

  it("starts with `npx stablegate-devnet` and TronWeb pays USDT on it", async () => {
    const deadline = Date.now() + 90_000;
    const { ready, output: outputOf } = await startInstalled<{
      url: string;
      usdt_contract: string;
      faucet_address: string;
    }>(["--port", "0", "--block-time-ms", "200", "--solidify-after", "2"], deadline);

    const tw = new TronWeb({ fullHost: ready.url, privateKey: DEFAULT_FAUCET_KEY });
    expect(tw.address.fromPrivateKey(DEFAULT_FAUCET_KEY)).toBe(ready.faucet_address);
    const to = (await TronWeb.createAccount()).address.base58;
    const usdt = await tw.contract().at(ready.usdt_contract);
    expect(await usdt.symbol().call()).toBe("USDT");
    const txid = (await usdt.transfer(to, 12_340_000).send()) as string;

    const receipt = await poll(
      `transfer ${txid} in a block`,
      async () => ((await tw.trx.getTransactionInfo(txid)) as { receipt?: { result?: string } }).receipt,
      { timeoutMs: Math.max(1, deadline - Date.now()), describe: () => `devnet output:\n${outputOf()}` },
    );
    expect(receipt.result).toBe("SUCCESS");
    const balance = await tw.transactionBuilder.triggerConstantContract(
      ready.usdt_contract,
      "balanceOf(address)",
      {},
      [{ type: "address", value: to }],
      ready.faucet_address,
    );
    expect(BigInt("0x" + (balance.constant_result[0] as string))).toBe(12_340_000n);
  }, 180_000);

  it("starts Anvil with `npx stablegate-devnet --evm` and ethers pays USDT on it", async () => {
    const { ready } = await startInstalled<{
      rpc_url: string;
      chain_id: number;
      usdt_contract: string;
      faucet_private_key: string;
    }>(["--evm", "--port", "0", "--block-time-ms", "0", "--quiet"], Date.now() + 90_000);
    const provider = new JsonRpcProvider(ready.rpc_url, ready.chain_id, { staticNetwork: true });
    const faucet = new Wallet(ready.faucet_private_key, provider);
    const to = Wallet.createRandom().address;
    const usdt = new Contract(
      ready.usdt_contract,
      ["function transfer(address,uint256)", "function balanceOf(address) view returns (uint256)"],
      faucet,
    );
    const tx = (await usdt.getFunction("transfer")(to, 12_340_000n)) as { hash: string };
    await provider.send("evm_mine", []);
    expect((await provider.getTransactionReceipt(tx.hash))?.status).toBe(1);
    expect(await usdt.getFunction("balanceOf")(to)).toBe(12_340_000n);
  }, 180_000);
});
