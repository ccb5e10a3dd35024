/** The committed token artifacts are what solc-js 0.8.37 makes of the Solidity sources, byte for byte. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EVM_TOKENS, SOLC_VERSION } from "@stablegate/devnet/evm-tokens";
import {
  ARTIFACT_FILE,
  SOLC_VERSION as PINNED,
  compileEvmTokens,
  renderArtifactModule,
} from "../../scripts/compile-evm-tokens.js";

describe("EVM token artifacts", () => {
  it("recompiling the sources gives the committed bytecode, ABIs and module text", async () => {
    expect(SOLC_VERSION).toBe(PINNED);
    const compiled = compileEvmTokens();
    expect(compiled.map((t) => t.key)).toEqual(["usdt", "usdc", "usdt18"]);
    for (const t of compiled) {
      const committed = EVM_TOKENS[t.key as keyof typeof EVM_TOKENS];
      expect(
        Buffer.from(committed.bytecode.slice(2), "hex").equals(Buffer.from(t.bytecode.slice(2), "hex")),
        t.key,
      ).toBe(true);
      expect(committed.bytecode.length, t.key).toBeGreaterThan(1000);
      expect(committed.abi).toEqual(t.abi);
    }
    expect(await renderArtifactModule(compiled)).toBe(readFileSync(ARTIFACT_FILE, "utf8"));
  }, 120_000);
});
