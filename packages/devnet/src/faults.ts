// Fault injection for the node API (never for /devnet/*): rate limiting, server errors, truncated
// bodies and latency, either with probabilities or as a fixed number of faulty replies; plus, per
// listener, a node that is down (connections cut) or lagging (`lag_blocks` behind the head).

export type FaultKind = "429" | "500" | "malformed";

export interface FaultConfig {
  rate429: number;
  rate500: number;
  rateMalformed: number;
  latencyMs: number;
  /** Path prefixes the faults apply to; null = every /wallet* and /walletsolidity* path. */
  paths: string[] | null;
  /** Faulty replies still to give; null = use the rates as probabilities forever. */
  remaining: number | null;
  /** The listener shows the chain this many blocks behind the head. */
  lagBlocks: number;
  /** Every node request has its connection cut without a reply (a node that went away). */
  down: boolean;
}

function rate(v: unknown, name: string): number {
  if (v === undefined) return 0;
  if (typeof v !== "number" || !(v >= 0 && v <= 1))
    throw new Error(`${name} must be a number between 0 and 1`);
  return v;
}

export class Faults {
  private cfg: FaultConfig | null = null;

  /** `{}` clears every fault. */
  configure(body: Record<string, unknown>): FaultConfig | null {
    if (Object.keys(body).length === 0) {
      this.cfg = null;
      return null;
    }
    const latency = body.latency_ms ?? 0;
    if (typeof latency !== "number" || latency < 0 || !Number.isFinite(latency)) {
      throw new Error("latency_ms must be a non-negative number");
    }
    const count = body.count;
    if (count !== undefined && (typeof count !== "number" || !Number.isInteger(count) || count < 0)) {
      throw new Error("count must be a non-negative integer");
    }
    const paths = body.paths;
    if (paths !== undefined && (!Array.isArray(paths) || !paths.every((p) => typeof p === "string"))) {
      throw new Error("paths must be an array of strings");
    }
    const lag = body.lag_blocks ?? 0;
    if (typeof lag !== "number" || !Number.isInteger(lag) || lag < 0 || lag > 1_000_000) {
      throw new Error("lag_blocks must be an integer between 0 and 1000000");
    }
    if (body.down !== undefined && typeof body.down !== "boolean") throw new Error("down must be a boolean");
    this.cfg = {
      rate429: rate(body.rate_429, "rate_429"),
      rate500: rate(body.rate_500, "rate_500"),
      rateMalformed: rate(body.rate_malformed, "rate_malformed"),
      latencyMs: latency,
      paths: paths ? (paths as string[]).map((p) => (p.startsWith("/") ? p : "/" + p)) : null,
      remaining: count ?? null,
      lagBlocks: lag,
      down: body.down === true,
    };
    return this.cfg;
  }

  get config(): FaultConfig | null {
    return this.cfg;
  }

  get lagBlocks(): number {
    return this.cfg?.lagBlocks ?? 0;
  }

  get down(): boolean {
    return this.cfg?.down ?? false;
  }

  /** What to do to the reply for `path`: a fault kind (or null) and the added latency. */
  decide(path: string): { kind: FaultKind | null; latencyMs: number } {
    const c = this.cfg;
    if (!c) return { kind: null, latencyMs: 0 };
    if (c.paths && !c.paths.some((p) => path === p || path.startsWith(p)))
      return { kind: null, latencyMs: 0 };
    const total = c.rate429 + c.rate500 + c.rateMalformed;
    let kind: FaultKind | null = null;
    if (c.remaining !== null) {
      if (c.remaining > 0) {
        c.remaining--;
        kind = total > 0 ? this.pick(Math.random() * total) : "500";
      }
    } else if (total > 0) {
      const r = Math.random();
      if (r < total) kind = this.pick(r);
    }
    return { kind, latencyMs: c.latencyMs };
  }

  private pick(r: number): FaultKind {
    const c = this.cfg as FaultConfig;
    if (r < c.rate429) return "429";
    if (r < c.rate429 + c.rate500) return "500";
    return "malformed";
  }
}
