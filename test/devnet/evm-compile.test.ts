/** The committed contract artifacts are what solc-js 0.8.37 makes of the Solidity sources, byte for byte. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EVM_TOKENS, SOLC_VERSION } from "@stablegate/devnet/evm-tokens";
import { EVM_SWEEPER_ARTIFACT } from "@stablegate/devnet/evm-sweeper";
import {
  ARTIFACT_FILE,
  SOLC_VERSION as PINNED,
  SWEEPER_ARTIFACT_FILE,
  compileEvmContracts,
  renderArtifactModule,
  renderSweeperModule,
} from "../../scripts/compile-evm-tokens.js";

const sameBytes = (a: string, b: string) =>
  Buffer.from(a.slice(2), "hex").equals(Buffer.from(b.slice(2), "hex"));

describe("EVM contract artifacts", () => {
  it("recompiling the sources gives the committed bytecode, ABIs and module text", async () => {
    expect(SOLC_VERSION).toBe(PINNED);
    const { tokens, sweeper } = compileEvmContracts();
    expect(tokens.map((t) => t.key)).toEqual(["usdt", "usdc", "usdt18"]);
    for (const t of tokens) {
      const committed = EVM_TOKENS[t.key as keyof typeof EVM_TOKENS];
      expect(sameBytes(committed.bytecode, t.bytecode), t.key).toBe(true);
      expect(committed.bytecode.length, t.key).toBeGreaterThan(1000);
      expect(committed.abi).toEqual(t.abi);
    }
    expect(await renderArtifactModule(tokens)).toBe(readFileSync(ARTIFACT_FILE, "utf8"));

    expect(sameBytes(EVM_SWEEPER_ARTIFACT.bytecode, sweeper.bytecode)).toBe(true);
    expect(sameBytes(EVM_SWEEPER_ARTIFACT.deployedBytecode, sweeper.deployedBytecode)).toBe(true);
    expect(EVM_SWEEPER_ARTIFACT.bytecode.length).toBeGreaterThan(500);
    expect(EVM_SWEEPER_ARTIFACT.coldWalletOffsets).toEqual(sweeper.coldWalletOffsets);
    expect(sweeper.coldWalletOffsets.length).toBeGreaterThan(0);
    expect(EVM_SWEEPER_ARTIFACT.abi).toEqual(sweeper.abi);
    expect(await renderSweeperModule(sweeper)).toBe(readFileSync(SWEEPER_ARTIFACT_FILE, "utf8"));
  }, 120_000);
});
