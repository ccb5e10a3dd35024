/**
 * USDT has 6 decimals. Inside the service an amount is a bigint of micro-USDT; outside it is a
 * string with exactly 6 decimals. These two functions are the only conversions.
 */
export const USDT_DECIMALS = 6;
const SCALE = 10n ** BigInt(USDT_DECIMALS);
const AMOUNT_PATTERN = /^(0|[1-9][0-9]{0,29})(?:\.([0-9]{1,6}))?$/;

/** Parses a positive decimal string ("12.5") into micro-units (12_500_000n); null when invalid. */
export function parseAmount(input: string): bigint | null {
  const match = AMOUNT_PATTERN.exec(input);
  if (!match) return null;
  const whole = BigInt(match[1] ?? "0");
  const fraction = BigInt((match[2] ?? "").padEnd(USDT_DECIMALS, "0"));
  return whole * SCALE + fraction;
}

export function formatAmount(micro: bigint): string {
  const negative = micro < 0n;
  const abs = negative ? -micro : micro;
  const whole = abs / SCALE;
  const fraction = (abs % SCALE).toString().padStart(USDT_DECIMALS, "0");
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}

/** Formats sun (1e-6 TRX) the same way; TRX has 6 decimals too. */
export const formatSun = formatAmount;
