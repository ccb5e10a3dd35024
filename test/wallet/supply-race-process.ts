/**
 * A real process for the address-supply race test (PostgreSQL only). Env: DATABASE_URL, RACE
 * (JSON, see SupplyRaceInput). Waits until startAt so that every process starts together, runs its
 * role until the deadline, prints one JSON line with its tally and exits.
 */
import { createContext } from "../../src/context.js";
import { openDatabase } from "../../src/db/connection.js";
import { createLogger } from "../../src/logger.js";
import { testConfig } from "../helpers/config.js";
import { supplyRace, type SupplyRaceInput } from "./supply-race-steps.js";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");
const input = JSON.parse(process.env.RACE ?? "{}") as SupplyRaceInput & { startAt: number };
const database = await openDatabase({ databaseUrl: url, poolSize: 12 });
const ctx = await createContext(testConfig({ DATABASE_URL: url }), {
  database,
  log: createLogger({ level: "silent" }),
});
await new Promise((resolve) => setTimeout(resolve, Math.max(0, input.startAt - Date.now())));
const tally = await supplyRace(ctx, input);
await ctx.database.close();
process.stdout.write(`${JSON.stringify(tally)}\n`);
process.exit(0);
