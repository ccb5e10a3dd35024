import { checkChain, type ChainCheck } from "../chain/check-chain.js";
import type { Context } from "../context.js";

export interface DatabaseCheck {
  status: "ok" | "unavailable";
  latency_ms: number;
  error?: string;
}

export interface Health {
  status: "ok" | "degraded" | "unavailable";
  checks: { database: DatabaseCheck; chain?: ChainCheck } & Record<string, unknown>;
}

const DATABASE_TIMEOUT_MS = 2000;

export async function checkDatabase(ctx: Context): Promise<DatabaseCheck> {
  const started = performance.now();
  try {
    await Promise.race([
      ctx.database.ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), DATABASE_TIMEOUT_MS).unref()),
    ]);
    ctx.metrics.databaseUp.set(1);
    return { status: "ok", latency_ms: Math.round((performance.now() - started) * 100) / 100 };
  } catch {
    ctx.metrics.databaseUp.set(0);
    // The driver's message may name hosts or users; the probe only says it failed.
    return {
      status: "unavailable",
      latency_ms: Math.round(performance.now() - started),
      error: "database unreachable",
    };
  }
}

export async function checkHealth(ctx: Context): Promise<Health> {
  const [database, chain] = await Promise.all([checkDatabase(ctx), boundedChainCheck(ctx)]);
  // Only the database makes the service unavailable (503); a slow or unreachable chain degrades it.
  const status = database.status !== "ok" ? "unavailable" : chain.status === "ok" ? "ok" : "degraded";
  return { status, checks: { database, chain } };
}

/**
 * The chain check reads the scanner's cursor from the database: bounded like the database probe,
 * so a database that does not answer (frozen, cut off) cannot hold the health reply.
 */
async function boundedChainCheck(ctx: Context): Promise<ChainCheck> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      checkChain(ctx),
      new Promise<ChainCheck>((resolve) => {
        timer = setTimeout(
          () =>
            resolve({
              status: "degraded",
              network: ctx.chains.primary.network,
              head: ctx.chains.primary.lastHead()?.number ?? null,
              scanned: null,
              lag: null,
              nodes: [],
              error: "chain check timed out",
            }),
          DATABASE_TIMEOUT_MS + 500,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
