/**
 * The one date format of every page: "22 Jan 2026, 12:00 UTC", with a relative time beside it
 * ("in 2 days", "5 min ago"). UTC throughout, so an operator and a payer in different time zones
 * read the same moment the same way.
 */
const ABSOLUTE = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hour12: false,
  timeZone: "UTC",
});

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${ABSOLUTE.format(date)} UTC`;
}

const UNITS: ReadonlyArray<[Intl.RelativeTimeFormatUnit, number]> = [
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
];
const RELATIVE = new Intl.RelativeTimeFormat("en", { numeric: "auto", style: "long" });

/** "in 2 days", "3 hours ago", "just now" (under a minute either way). */
export function relativeTime(iso: string, now: number): string {
  const diff = Date.parse(iso) - now;
  if (Number.isNaN(diff)) return "";
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms) return RELATIVE.format(Math.round(diff / ms), unit);
  }
  return "just now";
}
