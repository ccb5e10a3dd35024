/**
 * The order statuses (DESIGN.md 3). Imports nothing, so the database schema, the HTTP schemas and
 * the web UI all read this one list.
 */
export const ORDER_STATUSES = [
  "pending",
  "detected",
  "confirmed",
  "underpaid",
  "overpaid",
  "completed",
  "expired",
  "callback_failed",
  "cancelled",
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
