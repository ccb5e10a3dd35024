/**
 * The worker role: every background loop of the service. Each loop calls one idempotent domain
 * function, so any number of worker processes may run side by side.
 */
import type { Context } from "../context.js";
import type { Loop } from "./loop.js";

export interface Workers {
  stop(): Promise<void>;
}

export async function startWorkers(ctx: Context): Promise<Workers> {
  const loops: Loop[] = [];
  ctx.log.info({ loops: loops.map((loop) => loop.name) }, "workers started");
  return {
    async stop() {
      await Promise.all(loops.map((loop) => loop.stop()));
    },
  };
}
