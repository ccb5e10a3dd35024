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
 * A native coin's balance from its exact decimal string ("1.234567891234567891", 18 decimals on EVM
 * chains) shown with `places` decimals, cut (never rounded up: the wallet holds at least what is
 * shown) and grouped as formatUsdt does: "1.234567 ETH". A balance above zero that rounds to
 * nothing reads "< 0.000001 ETH". String arithmetic only: the value never passes through a float.
 * `exact` is the full value with its unit, for a title or a copy.
 */
export function formatNative(balance: string, unit: string, places = 6): { shown: string; exact: string } {
  const exact = `${balance} ${unit}`;
  const match = /^(\d+)(?:\.(\d*))?$/.exec(balance);
  if (!match) return { shown: exact, exact };
  const whole = match[1] ?? "0";
  const digits = match[2] ?? "";
  const fraction = digits.slice(0, places).padEnd(places, "0");
  const grouped = whole.replace(/^0+(?=\d)/, "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  if (/^0+$/.test(whole) && /^0*$/.test(fraction) && /[1-9]/.test(digits))
    return { shown: `< 0.${"0".repeat(places - 1)}1 ${unit}`, exact };
  return { shown: `${grouped}.${fraction} ${unit}`, exact };
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
