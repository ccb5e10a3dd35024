/**
 * Percentages shown as fixed two-decimal strings ("66.67"), computed in integers so a ratio of
 * counts never passes through floating point. Rounds half up; "0.00" when the whole is zero.
 */
export function formatPercent(part: bigint | number, whole: bigint | number): string {
  const p = BigInt(part);
  const w = BigInt(whole);
  if (w <= 0n) return "0.00";
  // Hundredths of a percent: part / whole * 100 * 100, rounded half up.
  const hundredths = (p * 10_000n * 2n + w) / (w * 2n);
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, "0")}`;
}
