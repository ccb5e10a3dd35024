/**
 * Amounts arrive as 6-decimal strings ("10.500000"). Arithmetic is on integer micro-units (BigInt),
 * never on floats, exactly as on the server.
 */
const AMOUNT = /^(\d+)(?:\.(\d{1,6}))?$/;

export function toMicro(amount: string): bigint | null {
  const match = AMOUNT.exec(amount);
  if (!match) return null;
  return BigInt(match[1] ?? "0") * 1_000_000n + BigInt((match[2] ?? "").padEnd(6, "0"));
}

/** "10.500000" -> "10.5", "3.000000" -> "3": what a payer types into a wallet. */
export function displayAmount(micro: bigint): string {
  const whole = micro / 1_000_000n;
  const fraction = (micro % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/** What is still to pay, or null when nothing is. */
export function remaining(expected: string, received: string): string | null {
  const a = toMicro(expected);
  const b = toMicro(received);
  if (a === null || b === null || b >= a) return null;
  return displayAmount(a - b);
}

export function trimAmount(amount: string): string {
  const micro = toMicro(amount);
  return micro === null ? amount : displayAmount(micro);
}

/** "12:05" or "1:02:05" until `expiresAt`; "0:00" once passed. */
export function countdown(expiresAt: string, now: number): string {
  const left = Math.max(0, Math.floor((Date.parse(expiresAt) - now) / 1000));
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = String(left % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}
