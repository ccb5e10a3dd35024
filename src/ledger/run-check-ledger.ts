/**
 * The `stablegate check-ledger` command: prints every difference (one line each), then what the
 * recount counted on each chain (every enabled chain, and any other chain the tables hold money
 * of), and the time the check took, and answers the exit code: 0 when the ledger balances and
 * agrees with the recount, 1 otherwise.
 */
import { join } from "node:path";
import type { Config } from "../config.js";
import { openDatabase } from "../db/connection.js";
import { formatAmount } from "../money.js";
import { checkLedger, formatLedgerDifference, recountByChain, type ChainRecount } from "./check-ledger.js";

/** The currencies each enabled chain takes: TRON's USDT, an EVM chain's configured tokens. */
function enabledCurrencies(config: Config): Map<string, string[]> {
  const enabled = new Map<string, string[]>();
  for (const chain of config.chains) {
    const evm = config.evmChains.find((c) => c.id === chain);
    if (!evm) enabled.set(chain, ["USDT"]);
    else
      enabled.set(chain, [
        ...(evm.usdtContract === undefined ? [] : ["USDT"]),
        ...(evm.usdcContract === undefined ? [] : ["USDC"]),
      ]);
  }
  return enabled;
}

/** One line per chain: `chain ethereum: USDC received 12.345678, reserved 0.000000, paid out 0.000000`. */
export function formatChainRecounts(config: Config, recounts: readonly ChainRecount[]): string[] {
  const currencies = enabledCurrencies(config);
  for (const r of recounts) {
    const list = currencies.get(r.chain) ?? [];
    if (!list.includes(r.currency)) currencies.set(r.chain, [...list, r.currency]);
  }
  return [...currencies].map(([chain, list]) => {
    const parts = list.map((currency) => {
      const r = recounts.find((x) => x.chain === chain && x.currency === currency);
      return (
        `${currency} received ${formatAmount(r?.received ?? 0n)}, ` +
        `reserved ${formatAmount(r?.reserved ?? 0n)}, paid out ${formatAmount(r?.paidOut ?? 0n)}`
      );
    });
    const enabled = config.chains.includes(chain as (typeof config.chains)[number]) ? "" : " (not enabled)";
    return `chain ${chain}${enabled}: ${parts.length > 0 ? parts.join("; ") : "no currency"}`;
  });
}

export async function runCheckLedger(
  config: Config,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: join(config.dataDir, "pglite"),
  });
  try {
    const started = performance.now();
    const differences = await checkLedger(database.db);
    const recounts = await recountByChain(database.db);
    for (const difference of differences) out(formatLedgerDifference(difference));
    for (const line of formatChainRecounts(config, recounts)) out(line);
    out(
      `ledger differences: ${differences.length} (checked in ${Math.round(performance.now() - started)} ms)`,
    );
    return differences.length === 0 ? 0 : 1;
  } finally {
    await database.close();
  }
}
