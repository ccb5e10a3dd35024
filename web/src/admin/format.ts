import { trimAmount, toMicro } from "../checkout/amounts.js";
import { formatDate } from "../dates.js";

export { trimAmount };

/** One date format across the console (see dates.ts). */
export function formatTime(iso: string | null | undefined): string {
  return formatDate(iso);
}

/** "9.500000 USDT": every amount in the console, six decimals and its unit. */
export function formatUsdt(amount: string | null | undefined, unit = "USDT"): string {
  if (amount === null || amount === undefined || amount === "") return "—";
  if (amount.startsWith("-")) return `−${formatUsdt(amount.slice(1), unit)}`;
  const micro = toMicro(amount);
  if (micro === null) return `${amount} ${unit}`;
  const whole = micro / 1_000_000n;
  const fraction = (micro % 1_000_000n).toString().padStart(6, "0");
  return `${whole.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${fraction} ${unit}`;
}

/**
 * A UUID's distinguishing part: UUIDv7 ids made in the same second share their first 8 characters,
 * so the list shows the last 8 instead.
 */
export function shortId(id: string): string {
  return id.length > 12 ? `…${id.slice(-8)}` : id;
}

export { ORDER_STATUSES } from "../../../src/orders/order-statuses.js";
export { CHAIN_IDS, CHAIN_LABELS, CURRENCIES } from "../../../src/chains/chain-types.js";
