/**
 * Node failover (DESIGN.md 11), whatever the family: a list of node clients as one. Every call goes
 * to the preferred healthy node: the first of the list that is not set aside. A node is set aside
 * after `failureThreshold` retryable failures in a row (node-call-error.ts: 429, 5xx, timeouts,
 * refused connections, malformed bodies), or when a head comparison finds it more than
 * `maxLagBlocks` behind the best node. A node set aside gets no traffic; a probe (one head call)
 * tries it again after a pause that doubles while it keeps failing, and a success makes it eligible
 * again, so calls return to the preferred node once it recovers. Heads are compared every
 * `probeIntervalMs` by asking every node at once (the node in use is not asked when it reported a
 * head moments ago; a node whose kept head looks too far behind is asked again before it is
 * judged), and only while calls are being made: an idle process makes no probe calls. When every
 * node is set aside, calls still go to the best of them (a lagging one before a failing one) rather
 * than fail without trying.
 *
 * `select()` names one node for a group of calls that must agree (a block's header and its
 * transfers), so a node that lags can never pair a header it got elsewhere with its own empty answer
 * for a block it has not seen. A family (tron/node-pool.ts, evm/rpc-pool.ts) says which of its calls
 * report the head and how a probe reads it.
 */
import type { Logger } from "../logger.js";
import type { NodeState, NodeStatus } from "./chain.js";
import { isNodeCallError } from "./node-call-error.js";

export type { NodeState, NodeStatus };

/** What a pooled client has: calls (any methods) and a way to let go of its connections. */
export interface PoolClient {
  close(): Promise<void>;
}

/** What the pool needs to know of a family's client. */
export interface PoolFamily<C> {
  /** The head a call's result reports (a head call), or undefined. */
  headOf(method: PropertyKey, args: readonly unknown[], result: unknown): number | undefined;
  /** One call that reads the head (a probe). */
  probeHead(client: C): Promise<unknown>;
  /** A property of the pool itself (e.g. a count summed over nodes), or undefined for a call. */
  poolProperty?(property: PropertyKey, raws: readonly C[], active: C): { value: unknown } | undefined;
}

export interface NodePoolOptions {
  /** Retryable failures in a row that set a node aside (default 3). */
  failureThreshold?: number;
  /** First pause before a node set aside is tried again (default 10 s), doubling up to maxPauseMs. */
  pauseMs?: number;
  maxPauseMs?: number;
  /** A node further than this behind the best head is set aside (default 5 blocks). */
  maxLagBlocks?: number;
  /** How often heads are compared while calls are made (default 30 s). */
  probeIntervalMs?: number;
  /** A head reported within this long counts as current in a comparison (default 2 s). */
  freshHeadMs?: number;
  now?: () => number;
  log?: Logger;
}

/** The pool: the client's calls go to the selected node. */
export type Pool<C> = C & {
  /** The node that calls go to now, as a client whose calls count for that node. */
  select(): C;
  status(): NodeStatus[];
  /** Only a fallback node is answering (the preferred one is set aside). */
  degraded(): boolean;
  /** Compares every node's head now (also run by itself while calls are made). */
  probe(): Promise<void>;
};

interface Member<C> {
  index: number;
  name: string;
  raw: C;
  client: C;
  state: NodeState;
  failuresInRow: number;
  /** Consecutive set-asides without a recovery: the pause doubles with each. */
  strikes: number;
  retryAt: number;
  head: number | null;
  headAt: number;
  lag: number | null;
  calls: number;
  errors: number;
  lastError: string | null;
}

/** scheme://host:port of a node URL. */
export function nodeName(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

/**
 * A pool over one family's clients: `family` says which calls report the head and how a probe
 * reads it.
 */
export function poolOf<C extends PoolClient>(
  nodes: { name: string; client: C }[],
  family: PoolFamily<C>,
  options: NodePoolOptions = {},
): Pool<C> {
  if (nodes.length === 0) throw new Error("a node pool needs at least one node");
  const now = options.now ?? Date.now;
  const threshold = options.failureThreshold ?? 3;
  const pauseMs = options.pauseMs ?? 10_000;
  const maxPauseMs = options.maxPauseMs ?? 120_000;
  const maxLag = options.maxLagBlocks ?? 5;
  const probeIntervalMs = options.probeIntervalMs ?? 30_000;
  const freshHeadMs = options.freshHeadMs ?? 2_000;
  const log = options.log;
  let nextProbeAt = now() + probeIntervalMs;
  let probing: Promise<void> | undefined;
  let activeIndex = 0;

  const members: Member<C>[] = nodes.map((n, index) => {
    const m: Member<C> = {
      index,
      name: n.name,
      raw: n.client,
      client: n.client,
      state: "healthy",
      failuresInRow: 0,
      strikes: 0,
      retryAt: 0,
      head: null,
      headAt: 0,
      lag: null,
      calls: 0,
      errors: 0,
      lastError: null,
    };
    m.client = counted(m);
    return m;
  });
  const single = members.length === 1;

  function setAside(m: Member<C>, state: Exclude<NodeState, "healthy">, reason: string): void {
    const wasHealthy = m.state === "healthy";
    m.state = state;
    const pause = Math.min(maxPauseMs, pauseMs * 2 ** Math.min(m.strikes, 16));
    m.strikes += 1;
    m.retryAt = now() + pause;
    nextProbeAt = Math.min(nextProbeAt, m.retryAt);
    if (wasHealthy) log?.warn({ node: m.name, reason, retryInMs: pause }, "node set aside");
  }

  function restore(m: Member<C>): void {
    if (m.state === "healthy") return;
    m.state = "healthy";
    m.strikes = 0;
    m.retryAt = 0;
    log?.info({ node: m.name }, "node healthy again");
  }

  function succeeded(m: Member<C>, head?: number): void {
    m.failuresInRow = 0;
    if (head !== undefined) {
      m.head = head;
      m.headAt = now();
    }
    // Traffic only reaches a failing node when every node is set aside: an answer ends that.
    if (m.state === "failing") restore(m);
  }

  function failed(m: Member<C>, error: unknown): void {
    if (!isNodeCallError(error) || !error.retryable) return;
    m.errors += 1;
    m.failuresInRow += 1;
    m.lastError = error.kind;
    if (single) return;
    if (m.state === "failing") {
      // A failed retry (probe): wait longer before the next one.
      if (now() >= m.retryAt) setAside(m, "failing", error.kind);
      return;
    }
    if (m.failuresInRow >= threshold)
      setAside(m, "failing", `${m.failuresInRow} failures in a row (${error.kind})`);
  }

  /** The member's client, with every call counted and judged for that member. */
  function counted(m: Member<C>): C {
    return new Proxy(m.raw, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== "function" || property === "close") return value;
        return async (...args: unknown[]) => {
          m.calls += 1;
          try {
            const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(
              target,
              args,
            );
            succeeded(m, family.headOf(property, args, result));
            return result;
          } catch (error) {
            failed(m, error);
            throw error;
          }
        };
      },
    });
  }

  function pick(): Member<C> {
    const healthy = members.find((m) => m.state === "healthy");
    if (healthy) return healthy;
    const lagging = members.find((m) => m.state === "lagging");
    if (lagging) return lagging;
    return members.reduce((a, b) => (b.retryAt < a.retryAt ? b : a));
  }

  function select(): C {
    if (!single && now() >= nextProbeAt && !probing) {
      probing = probe().finally(() => (probing = undefined));
    }
    const m = pick();
    if (m.index !== activeIndex) {
      log?.warn({ from: members[activeIndex]?.name, to: m.name }, "node calls move to another node");
      activeIndex = m.index;
    }
    return m.client;
  }

  async function probe(): Promise<void> {
    nextProbeAt = now() + probeIntervalMs;
    const started = now();
    const asked = members.filter(
      (m) =>
        (m.state !== "failing" || started >= m.retryAt) &&
        !(m.state === "healthy" && m.head !== null && started - m.headAt <= freshHeadMs),
    );
    await Promise.all(asked.map((m) => family.probeHead(m.client).catch(() => undefined)));
    const current = () => members.filter((m) => m.head !== null && m.headAt >= started - freshHeadMs);
    const bestOf = (ms: Member<C>[]) => Math.max(...ms.map((m) => m.head as number));
    // A head kept from before this round is up to freshHeadMs old: on fast blocks that alone can
    // put it more than maxLag behind. Such a node is asked again before it is judged.
    const best0 = bestOf(current());
    const stale = current().filter(
      (m) => m.state !== "failing" && m.headAt < started && best0 - (m.head as number) > maxLag,
    );
    await Promise.all(stale.map((m) => family.probeHead(m.client).catch(() => undefined)));
    const judged = current();
    const best = bestOf(judged);
    for (const m of judged) {
      const lag = best - (m.head as number);
      m.lag = lag;
      if (m.state === "failing") continue;
      if (lag > maxLag) setAside(m, "lagging", `head ${lag} blocks behind`);
      else restore(m);
    }
    for (const m of members) {
      if (m.state !== "healthy") nextProbeAt = Math.min(nextProbeAt, Math.max(m.retryAt, now() + 100));
    }
  }

  function status(): NodeStatus[] {
    const active = pick();
    return members.map((m) => ({
      index: m.index,
      name: m.name,
      state: m.state,
      active: m === active,
      head: m.head,
      headAt: m.head === null ? null : new Date(m.headAt).toISOString(),
      lag: m.lag,
      calls: m.calls,
      errors: m.errors,
      lastError: m.lastError,
      retryAt: m.state === "healthy" ? null : new Date(m.retryAt).toISOString(),
    }));
  }

  // Every client method goes to the node selected at the time of the call.
  const pool = new Proxy({} as Pool<C>, {
    get(_target, property) {
      switch (property) {
        case "select":
          return select;
        case "status":
          return status;
        case "probe":
          return probe;
        case "degraded":
          return () => pick().index !== 0;
        case "close":
          return async () => {
            await probing?.catch(() => undefined);
            await Promise.all(members.map((m) => m.raw.close()));
          };
        case "then":
          return undefined;
        default: {
          const own = family.poolProperty?.(
            property,
            members.map((m) => m.raw),
            pick().raw,
          );
          if (own) return own.value;
          return (...args: unknown[]) => {
            const client = select() as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>;
            const method = client[property];
            if (typeof method !== "function") throw new TypeError(`no node call ${String(property)}`);
            return method(...args);
          };
        }
      }
    },
  });
  return pool;
}
