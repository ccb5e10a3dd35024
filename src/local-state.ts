/**
 * ctx.local: what one process keeps between calls (caches, batchers, claim floors, rate windows,
 * wake-ups). createContext creates it; every context spread from that one (a request's
 * `{ ...ctx, log }`, a worker step's) holds the same object, so a cache a request filled serves the
 * next request. Nothing of this lives in module-level maps keyed on a context or a database handle.
 *
 * Each module declares its state as a slot next to the code that uses it
 * (`const balance = localSlot("hot wallet balance", (): { last?: Cached } => ({}))`) and reads it with
 * `ctx.local.get(balance)`: the first read creates it. This module knows none of the slots, so
 * domain modules keep their state's type and meaning to themselves.
 *
 * The state is per context, which is per process: two contexts built over one database (tests that
 * stand for an api replica and a worker, or for two replicas) keep separate state, as two
 * processes would. Each has its own API-key cache (a key rotated through one is refused by the
 * other's cached path all the same: the creation statement re-checks the key), its own wallet
 * caches, and a creation in one does not wake a pool filler the other runs. The two pieces sized to
 * the connection pool (the creation batcher's statements in flight, at most half the pool, and the
 * one inline address block derived at a time) assume one context per pool, as in production, where
 * createContext opens the pool; contexts that share a pool each have their own, and their shares add
 * up.
 *
 * Memos of values that depend on no context (parsed callback URLs, the derivation worker thread, a
 * constant dummy password hash) stay in their modules: any context would get the same answer.
 */

/** A named piece of process state and how to make its initial value. */
export interface LocalSlot<T extends object> {
  readonly name: string;
  readonly create: () => T;
}

export function localSlot<T extends object>(name: string, create: () => T): LocalSlot<T> {
  return Object.freeze({ name, create });
}

export class LocalState {
  private readonly values = new Map<LocalSlot<object>, object>();

  /** The slot's value in this process, created on the first read. */
  get<T extends object>(slot: LocalSlot<T>): T {
    let value = this.values.get(slot) as T | undefined;
    if (value === undefined) {
      value = slot.create();
      this.values.set(slot, value);
    }
    return value;
  }

  /** The names of the slots read so far, for diagnostics and tests. */
  names(): string[] {
    return [...this.values.keys()].map((slot) => slot.name);
  }
}
