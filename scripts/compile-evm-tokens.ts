/**
 * npx tsx scripts/compile-evm-tokens.ts [--check]
 *
 * Compiles the EVM devnet's contracts (packages/devnet/contracts/*.sol: the three tokens and the
 * EIP-7702 sweeper) with solc-js at the pinned version and fixed settings, and writes the bytecode
 * and ABIs to packages/devnet/src/evm-tokens.ts and evm-sweeper-artifact.ts, so installing the
 * devnet never needs a compiler. The same sources, compiler and settings give the same bytes:
 * test/devnet/evm-compile.test.ts recompiles and compares them byte for byte. With --check it writes
 * nothing and exits 1 when a module is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import solc from "solc";

const CONTRACTS_DIR = fileURLToPath(new URL("../packages/devnet/contracts/", import.meta.url));
export const ARTIFACT_FILE = fileURLToPath(new URL("../packages/devnet/src/evm-tokens.ts", import.meta.url));
export const SWEEPER_ARTIFACT_FILE = fileURLToPath(
  new URL("../packages/devnet/src/evm-sweeper-artifact.ts", import.meta.url),
);
export const SOLC_VERSION = "0.8.37";

/** Contract name -> its source file; the order is the deployment order (nonces 0, 1, 2). */
const CONTRACTS = [
  { key: "usdt", file: "TetherToken.sol", contract: "TetherToken" },
  { key: "usdc", file: "FiatToken.sol", contract: "FiatToken" },
  { key: "usdt18", file: "BEP20Token.sol", contract: "BEP20Token" },
] as const;
const SWEEPER = { file: "Sweeper.sol", contract: "Sweeper" } as const;

interface SolcContract {
  abi: unknown[];
  evm: {
    bytecode: { object: string };
    deployedBytecode: {
      object: string;
      immutableReferences?: Record<string, { start: number; length: number }[]>;
    };
  };
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, SolcContract>>;
}

export interface CompiledToken {
  key: string;
  contract: string;
  abi: unknown[];
  /** 0x-prefixed creation bytecode, constructor arguments not included. */
  bytecode: string;
}

export interface CompiledSweeper {
  contract: string;
  abi: unknown[];
  /** 0x-prefixed creation bytecode; the constructor takes the cold wallet (address). */
  bytecode: string;
  /** 0x-prefixed runtime code with the immutable's bytes zeroed. */
  deployedBytecode: string;
  /** Byte offsets of the 32-byte words that hold COLD_WALLET in the runtime code. */
  coldWalletOffsets: number[];
}

export function compileEvmContracts(): { tokens: CompiledToken[]; sweeper: CompiledSweeper } {
  const version = (solc.version as () => string)();
  if (!version.startsWith(SOLC_VERSION + "+")) {
    throw new Error(`solc ${SOLC_VERSION} expected, found ${version}`);
  }
  const sources: Record<string, { content: string }> = {};
  for (const c of [...CONTRACTS, SWEEPER]) {
    sources[`contracts/${c.file}`] = { content: readFileSync(CONTRACTS_DIR + c.file, "utf8") };
  }
  const input = {
    language: "Solidity",
    sources,
    settings: {
      // Cancun runs on every chain Stablegate targets; Anvil's default hardfork is later.
      evmVersion: "cancun",
      optimizer: { enabled: true, runs: 200 },
      outputSelection: {
        "*": {
          "*": [
            "abi",
            "evm.bytecode.object",
            "evm.deployedBytecode.object",
            "evm.deployedBytecode.immutableReferences",
          ],
        },
      },
    },
  };
  const output = JSON.parse((solc.compile as (input: string) => string)(JSON.stringify(input))) as SolcOutput;
  const problems = (output.errors ?? []).filter((e) => e.severity !== "info");
  if (problems.length > 0) throw new Error(problems.map((e) => e.formattedMessage).join("\n"));
  const compiled = (file: string, contract: string): SolcContract => {
    const out = output.contracts[`contracts/${file}`]?.[contract];
    if (!out) throw new Error(`solc produced no ${contract}`);
    return out;
  };
  const tokens = CONTRACTS.map((c) => {
    const out = compiled(c.file, c.contract);
    return { key: c.key, contract: c.contract, abi: out.abi, bytecode: "0x" + out.evm.bytecode.object };
  });
  const sw = compiled(SWEEPER.file, SWEEPER.contract);
  const refs = Object.values(sw.evm.deployedBytecode.immutableReferences ?? {});
  // One immutable (COLD_WALLET): every reference to it is one 32-byte word.
  if (refs.length !== 1 || refs[0]?.some((r) => r.length !== 32)) {
    throw new Error(`the sweeper must have exactly one immutable: ${JSON.stringify(refs)}`);
  }
  const sweeper = {
    contract: SWEEPER.contract,
    abi: sw.abi,
    bytecode: "0x" + sw.evm.bytecode.object,
    deployedBytecode: "0x" + sw.evm.deployedBytecode.object,
    coldWalletOffsets: (refs[0] ?? []).map((r) => r.start),
  };
  return { tokens, sweeper };
}

/** The artifact module's text, formatted as the repository formats TypeScript. */
export async function renderArtifactModule(tokens: CompiledToken[]): Promise<string> {
  const lines = [
    "// Generated by scripts/compile-evm-tokens.ts from contracts/*.sol with solc " + SOLC_VERSION + ".",
    "// Do not edit: change the sources and run the script (a test recompiles and compares the bytecode).",
    "",
    `export const SOLC_VERSION = ${JSON.stringify(SOLC_VERSION)};`,
    "",
    "export interface EvmTokenArtifact {",
    "  contract: string;",
    "  abi: readonly unknown[];",
    "  /** Creation bytecode; the constructor takes the initial supply (uint256), minted to the deployer. */",
    "  bytecode: `0x${string}`;",
    "}",
    "",
    "export const EVM_TOKENS: Record<" +
      tokens.map((t) => JSON.stringify(t.key)).join(" | ") +
      ", EvmTokenArtifact> = {",
  ];
  for (const t of tokens) {
    lines.push(`  ${t.key}: {`);
    lines.push(`    contract: ${JSON.stringify(t.contract)},`);
    lines.push(`    abi: ${JSON.stringify(t.abi)},`);
    lines.push(`    bytecode: ${JSON.stringify(t.bytecode)},`);
    lines.push("  },");
  }
  lines.push("};", "");
  return formatModule(lines, ARTIFACT_FILE);
}

/** The sweeper's artifact module's text. */
export async function renderSweeperModule(sweeper: CompiledSweeper): Promise<string> {
  const lines = [
    "// Generated by scripts/compile-evm-tokens.ts from contracts/Sweeper.sol with solc " +
      SOLC_VERSION +
      ".",
    "// Do not edit: change the source and run the script (a test recompiles and compares the bytecode).",
    "",
    "export interface EvmSweeperArtifact {",
    "  contract: string;",
    "  abi: readonly unknown[];",
    "  /** Creation bytecode; the constructor takes the cold wallet (address). */",
    "  bytecode: `0x${string}`;",
    "  /** Runtime code with COLD_WALLET's bytes zeroed (see evm-sweeper.ts, sweeperRuntimeCode). */",
    "  deployedBytecode: `0x${string}`;",
    "  /** Byte offsets of the 32-byte words holding COLD_WALLET in the runtime code. */",
    "  coldWalletOffsets: readonly number[];",
    "}",
    "",
    "export const EVM_SWEEPER_ARTIFACT: EvmSweeperArtifact = {",
    `  contract: ${JSON.stringify(sweeper.contract)},`,
    `  abi: ${JSON.stringify(sweeper.abi)},`,
    `  bytecode: ${JSON.stringify(sweeper.bytecode)},`,
    `  deployedBytecode: ${JSON.stringify(sweeper.deployedBytecode)},`,
    `  coldWalletOffsets: ${JSON.stringify(sweeper.coldWalletOffsets)},`,
    "};",
    "",
  ];
  return formatModule(lines, SWEEPER_ARTIFACT_FILE);
}

async function formatModule(lines: string[], file: string): Promise<string> {
  const options = await resolveConfig(file);
  return format(lines.join("\n"), { ...options, filepath: file });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { tokens, sweeper } = compileEvmContracts();
  const modules = [
    { file: ARTIFACT_FILE, text: await renderArtifactModule(tokens) },
    { file: SWEEPER_ARTIFACT_FILE, text: await renderSweeperModule(sweeper) },
  ];
  const check = process.argv.includes("--check");
  let stale = false;
  for (const m of modules) {
    if (!check) {
      writeFileSync(m.file, m.text);
      console.log(`wrote ${m.file}`);
    } else if (readFileSync(m.file, "utf8") !== m.text) {
      console.error(`${m.file} is out of date: run npx tsx scripts/compile-evm-tokens.ts`);
      stale = true;
    } else {
      console.log(`${m.file} is up to date`);
    }
  }
  if (stale) process.exit(1);
}
