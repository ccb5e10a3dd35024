/**
 * The CLI's verbs and roles (DESIGN.md 2), shared by main.ts (which dispatches from COMMANDS and
 * nothing else) and the checks of compose.yaml.
 */
export const COMMANDS = [
  "serve",
  "migrate",
  "check-rollups",
  "verify-audit",
  "check-ledger",
  "help",
] as const;
export type Command = (typeof COMMANDS)[number];
export const ROLES = ["all", "api", "worker"] as const;
export type Role = (typeof ROLES)[number];

export function isCommand(value: string | undefined): value is Command {
  return (COMMANDS as readonly (string | undefined)[]).includes(value);
}

/** One usage line per command: a command cannot be added without one. */
const USAGE_LINES: Record<Command, string> = {
  serve: "serve [--role all|api|worker]   run the service (default role: all)",
  migrate: "migrate                         apply pending database migrations and exit",
  "check-rollups": "check-rollups                   recount the admin rollups; exit 1 if any counter differs",
  "verify-audit":
    "verify-audit [--head] [--expect-head ID:HASH]\n" +
    "                                recompute the audit log's hash chain; exit 1 naming the first broken\n" +
    "                                  row; --head prints the newest row's ID:HASH to keep elsewhere;\n" +
    "                                  --expect-head exits 1 when the chain no longer holds that row",
  "check-ledger":
    "check-ledger                    prove the merchant ledger balances and matches orders, refunds\n" +
    "                                  and payouts; print the differences and exit 1 if any",
  help: "help                            print this text",
};

export const USAGE = `usage: stablegate <command>

commands:
${COMMANDS.map((command) => `  ${USAGE_LINES[command]}`).join("\n")}
`;
