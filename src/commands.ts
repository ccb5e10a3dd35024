/** The CLI's verbs and roles (DESIGN.md 2), shared by main.ts and the checks of compose.yaml. */
export const COMMANDS = ["serve", "migrate", "check-rollups", "verify-audit", "help"] as const;
export const ROLES = ["all", "api", "worker"] as const;
export type Role = (typeof ROLES)[number];
