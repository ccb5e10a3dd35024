/**
 * A real process for the rollup race test (PostgreSQL only). Env: DATABASE_URL, RACE (JSON:
 * merchantId, orderIds, steps, seed, name, startAt). Waits until startAt so that two processes
 * start together, runs the race, prints one JSON line with its tally and exits.
 */
import { createContext } from "../../src/context.js";
import { createLogger } from "../../src/logger.js";
import { testConfig } from "../helpers/config.js";
import { race } from "./race-steps.js";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");
const input = JSON.parse(process.env.RACE ?? "{}") as Parameters<typeof race>[1] & { startAt: number };
const ctx = await createContext(testConfig({ DATABASE_URL: url }), {
  migrate: false,
  log: createLogger({ level: "silent" }),
});
await new Promise((resolve) => setTimeout(resolve, Math.max(0, input.startAt - Date.now())));
const tally = await race(ctx, input);
await ctx.database.close();
process.stdout.write(`${JSON.stringify(tally)}\n`);
process.exit(0);
