/**
 * The process: opens the context, listens (api role), starts the loops (worker role) and shuts down
 * gracefully on SIGTERM/SIGINT: stop accepting, finish in-flight requests and tasks, close the pool.
 */
import type { FastifyInstance } from "fastify";
import type { Devnet } from "@stablegate/devnet";
import {
  startEmbeddedDevnets,
  type EmbeddedDevnets,
  type EmbeddedEvmDevnet,
} from "./chains/embedded-devnets.js";
import { checkSweeperSecrets, type Config, type Env } from "./config.js";
import { createContext, type Context } from "./context.js";
import type { Workers } from "./workers/index.js";
import { startMetricsSnapshotReader } from "./workers/metrics-loops.js";
import type { Loop } from "./workers/loop.js";
import { stopAddressDeriver } from "./chains/tron/address-deriver.js";

import type { Role } from "./commands.js";

export type { Role };

export interface RunningService {
  ctx: Context;
  app: FastifyInstance | undefined;
  url: string | undefined;
  /** The in-process devnet of the embedded demo (TRON_NETWORK=devnet without TRON_NODE_URL). */
  devnet: Devnet | undefined;
  /** The embedded demo's EVM devnets (EVM chains on `devnet` without an endpoint). */
  evmDevnets: EmbeddedEvmDevnet[];
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** The environment `config` was loaded from, to reload it for the embedded devnet (default process.env). */
  env?: Env;
}

export async function startService(
  initialConfig: Config,
  role: Role,
  options: ServiceOptions = {},
): Promise<RunningService> {
  // Only processes that run the sweeper need the signing secrets (DESIGN.md 2).
  if (role !== "api") checkSweeperSecrets(initialConfig);
  const devnets: EmbeddedDevnets = await startEmbeddedDevnets(
    initialConfig,
    options.env ?? process.env,
    (message) => process.stderr.write(`warning: ${message}\n`),
  );
  const config = devnets.config;
  let ctx: Context;
  try {
    ctx = await createContext(config, { role });
  } catch (error) {
    await devnets.close();
    throw error;
  }
  let app: FastifyInstance | undefined;
  let workers: Workers | undefined;
  let url: string | undefined;
  let snapshotReader: Loop | undefined;
  try {
    // A worker listens too, for /metrics and health only (its own scanner, sweep and webhook figures).
    // Each role loads only its own modules: an api never loads the loops, a worker never loads the
    // routes, the OpenAPI document or the web UI's static files (start-up time and memory).
    app =
      role === "worker"
        ? await (await import("./http/ops-app.js")).buildOpsApp(ctx)
        : await (await import("./http/app.js")).buildApp(ctx);
    url = await app.listen({ port: config.port, host: config.host });
    if (role === "all" || role === "worker") {
      workers = await (await import("./workers/index.js")).startWorkers(ctx);
    }
    snapshotReader = startMetricsSnapshotReader(ctx);
  } catch (error) {
    await app?.close();
    await workers?.stop();
    await ctx.database.close();
    await ctx.chains.close();
    await devnets.close();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    ctx,
    app,
    url,
    devnet: devnets.tron,
    evmDevnets: devnets.evm,
    stop() {
      stopping ??= (async () => {
        await app?.close();
        await workers?.stop();
        await snapshotReader?.stop();
        await stopAddressDeriver();
        await ctx.database.close();
        await ctx.chains.close();
        await devnets.close();
      })();
      return stopping;
    },
  };
}
