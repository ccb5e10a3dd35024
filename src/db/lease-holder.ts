/**
 * A worker's proof of life for the leases it takes: a session-level advisory lock on a random key,
 * held on one connection for as long as the process lives. The worker's lease owners are named
 * `<name>@<key>`. PostgreSQL frees a session's locks the moment its connection ends, and a killed
 * process's connection ends with it (the kernel closes its socket), so a lease whose owner's key no
 * session holds belongs to a dead worker: claims take it at once instead of waiting out its expiry
 * (payout-store.ts claimDuePayouts). A live worker's key is always held, so its leases are never
 * taken early. If the lock's connection dies while the process lives, the next owner() takes a new
 * key; the leases under the old one may then be taken by others, which is safe because a lease only
 * spreads the work: every write after a claim re-checks the lease under a row lock, and the EVM
 * outbox stores a payout's transaction once.
 *
 * PGlite is one process and tracks its advisory locks itself (no pg_locks rows): there an owner is
 * a plain name and leases only expire.
 */
import { randomBytes } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import type { Database, HeldLock } from "./connection.js";

export interface LeaseHolder {
  /** `name`, tied to this process's liveness lock where the database has one (`name@key`). */
  owner(name: string): Promise<string>;
  /** Releases the lock: this process's leases can be taken at once from then on. */
  close(): Promise<void>;
}

/** Keys from 2^48 up: far from the fixed keys of locks.ts, and exact in a JavaScript number. */
const randomKey = () => 2 ** 48 + randomBytes(6).readUIntBE(0, 6);

export function leaseHolder(database: Database): LeaseHolder {
  let held: { key: number; lock: HeldLock } | undefined;
  let closed = false;
  const take = async () => {
    for (;;) {
      const key = randomKey();
      const lock = await database.tryLock(key);
      if (!lock) continue; // another process drew the same key
      const mine = { key, lock };
      void lock.lost.then(() => {
        if (held === mine) held = undefined;
        void lock.release();
      });
      return mine;
    }
  };
  let taking: Promise<{ key: number; lock: HeldLock }> | undefined;
  return {
    async owner(name) {
      if (database.kind !== "postgres" || closed) return name;
      if (!held) {
        taking ??= take().finally(() => (taking = undefined));
        const taken = await taking;
        if (closed) {
          await taken.lock.release();
          return name;
        }
        held = taken;
      }
      return `${name}@${held.key}`;
    },
    async close() {
      closed = true;
      const lock = held?.lock;
      held = undefined;
      await lock?.release();
    },
  };
}

/**
 * SQL: true when `owner` (a lease_owner column) names a liveness key no session of this database
 * holds. Plain names (no key) are never gone: their leases expire.
 */
export function holderGone(owner: SQL): SQL {
  return sql`(${owner} ~ '@[0-9]+$' AND substring(${owner} FROM '@([0-9]+)$')::bigint <> ALL (ARRAY(
    SELECT (l.classid::bigint << 32) | l.objid::bigint FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted
      AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))))`;
}
