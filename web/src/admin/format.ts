import { trimAmount } from "../checkout/amounts.js";

export { trimAmount };

/** "2026-11-22 06:03:38 UTC": operators compare times across time zones, so UTC throughout. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

export { ORDER_STATUSES } from "../../../src/orders/order-statuses.js";
