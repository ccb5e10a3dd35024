// java-tron's resource usage arithmetic (ResourceProcessor): usage recovers linearly over a window of
// 28,800 slots (24 h of 3 s blocks), counted in slots since genesis; merging new usage into old usage
// also merges their windows (Stake 2.0's "window size V2", kept with a precision of 1000). Integer
// steps follow java-tron's (ceil, round, truncation), so the numbers match a real node's.

export const SLOT_MS = 3000;
export const WINDOW_SLOTS = 28_800;
export const WINDOW_PRECISION = 1000;
const FULL_WINDOW_V2 = WINDOW_SLOTS * WINDOW_PRECISION;
const PRECISION = 1_000_000n;

/** One resource's usage record on an account (energy, or staked bandwidth). */
export interface Usage {
  usage: number;
  /** slot of the last consumption */
  time: number;
  /** window size V2 (slots × 1000); 0 = the full window */
  window: number;
}

export const NO_USAGE: Usage = { usage: 0, time: 0, window: 0 };

export function slotOf(ms: number, genesisMs: number): number {
  return Math.max(0, Math.floor((ms - genesisMs) / SLOT_MS));
}

export function windowV2(u: Usage): number {
  return u.window > 0 ? u.window : FULL_WINDOW_V2;
}

/** The window in whole slots (java-tron's getWindowSize for an optimized account). */
export function windowSlots(u: Usage): number {
  const w = windowV2(u);
  return w < WINDOW_PRECISION ? WINDOW_SLOTS : Math.floor(w / WINDOW_PRECISION);
}

function divideCeil(n: bigint, d: bigint): bigint {
  return n / d + (n % d > 0n ? 1n : 0n);
}

/** The average-usage term decayed from lastTime to now over `window` slots. */
function decayed(lastUsage: number, lastTime: number, now: number, window: number): bigint {
  let average = divideCeil(BigInt(lastUsage) * PRECISION, BigInt(window));
  if (lastTime !== now) {
    if (lastTime + window > now) {
      const decay = (window - (now - lastTime)) / window;
      average = BigInt(Math.round(Number(average) * decay));
    } else average = 0n;
  }
  return average;
}

/** Plain increase with a fixed window (free bandwidth and recovery reads). */
export function increase(
  lastUsage: number,
  usage: number,
  lastTime: number,
  now: number,
  window = WINDOW_SLOTS,
): number {
  const last = decayed(lastUsage, lastTime, now, window);
  const added = divideCeil(BigInt(usage) * PRECISION, BigInt(window));
  return Number(((last + added) * BigInt(window)) / PRECISION);
}

/** Usage left at `now` of what was used, without consuming anything. */
export function recovered(u: Usage, now: number): number {
  return increase(u.usage, 0, u.time, now, windowSlots(u));
}

/** java-tron's increaseV2: adds `usage` at `now` and merges the windows. */
export function consume(u: Usage, usage: number, now: number): Usage {
  const oldWindow = windowSlots(u);
  const last = decayed(u.usage, u.time, now, oldWindow);
  const added = divideCeil(BigInt(usage) * PRECISION, BigInt(WINDOW_SLOTS));
  const newUsage = Number((last * BigInt(oldWindow) + added * BigInt(WINDOW_SLOTS)) / PRECISION);
  const remain = Number((last * BigInt(oldWindow)) / PRECISION);
  if (remain === 0) return { usage: newUsage, time: now, window: FULL_WINDOW_V2 };
  const remainWindow = windowV2(u) - (now - u.time) * WINDOW_PRECISION;
  const merged = divideCeil(
    BigInt(remain) * BigInt(remainWindow) + BigInt(usage) * BigInt(FULL_WINDOW_V2),
    BigInt(newUsage),
  );
  return { usage: newUsage, time: now, window: Math.min(Number(merged), FULL_WINDOW_V2) };
}

/** java-tron's unDelegateIncreaseV2: the owner takes back `transfer` usage with the receiver's window. */
export function takeBack(owner: Usage, receiver: Usage, transfer: number, now: number): Usage {
  const own = consume(owner, 0, now);
  const total = own.usage + transfer;
  if (total === 0) return { usage: 0, time: now, window: FULL_WINDOW_V2 };
  const ownWindow = Math.max(0, windowV2(own));
  const receiverWindow = Math.max(0, windowV2(receiver));
  const merged = divideCeil(
    BigInt(own.usage) * BigInt(ownWindow) + BigInt(transfer) * BigInt(receiverWindow),
    BigInt(total),
  );
  return { usage: total, time: now, window: Math.min(Number(merged), FULL_WINDOW_V2) };
}
