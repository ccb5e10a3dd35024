/**
 * The statuses of a static deposit address and of a deposit (DESIGN.md 15). Imports nothing, so the
 * database schema and the HTTP schemas read this one list.
 */
export const DEPOSIT_ADDRESS_STATUSES = ["active", "disabled"] as const;
export type DepositAddressStatus = (typeof DEPOSIT_ADDRESS_STATUSES)[number];

export const DEPOSIT_STATUSES = ["detected", "confirmed", "reverted"] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];
