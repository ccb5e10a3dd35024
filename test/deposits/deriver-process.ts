/**
 * A real process deriving addresses for the derivation test (PostgreSQL only). Env: DATABASE_URL,
 * ROLE (worker: fills the order pool; api: creates orders, deriving inline on an empty pool),
 * MERCHANT_ID, COUNT. Both roles create static deposit addresses in between. Prints "ready", waits
 * for "go" on stdin, then prints "done" when finished.
 */
import { createContext } from "../../src/context.js";
import { createLogger } from "../../src/logger.js";
import { testConfig } from "../helpers/config.js";
import { deriveConcurrently } from "./derive-loop.js";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL is required");
const ctx = await createContext(testConfig({ DATABASE_URL: url, POOL_MIN_FREE: "0" }), {
  migrate: false,
  log: createLogger({ level: "silent" }),
});
process.stdout.write("ready\n");
process.stdin.once("data", () => {
  void deriveConcurrently(ctx, {
    role: process.env.ROLE === "api" ? "api" : "worker",
    merchantId: process.env.MERCHANT_ID ?? "",
    count: Number(process.env.COUNT ?? 20),
    tag: `${process.env.ROLE}-${process.pid}`,
  })
    .then(() => {
      process.stdout.write("done\n");
      return ctx.database.close();
    })
    .then(() => process.exit(0))
    .catch((error: unknown) => {
      process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
      process.exit(1);
    });
});
