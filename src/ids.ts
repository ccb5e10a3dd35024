import { randomFillSync } from "node:crypto";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A malformed id is answered like an unknown one (404), so callers check before querying. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * A new row id: a UUID version 7 (RFC 9562), the creation time in milliseconds followed by 74
 * random bits. Ids of rows created close together sit next to each other in the primary-key index,
 * so an insert touches the index's right edge instead of a random page of it. With version 4 ids,
 * each new order read and dirtied a random leaf of a primary key that at ten million orders is far
 * larger than shared_buffers. 74 random bits keep ids unguessable; the
 * creation time they reveal is shown next to every order anyway.
 *
 * Callers that stamp the row with ctx.clock pass that time. The default is the wall clock: the
 * time part only places the row in the index, and ids made without a clock at hand sort in the
 * order they were made (to the millisecond), even in a test whose fake clock stands still.
 */
export function newId(now = Date.now()): string {
  const bytes = Buffer.allocUnsafe(16);
  takeRandom(bytes, 6);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | ((bytes[6] as number) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Random bytes for ids, drawn from the CSPRNG a pool at a time (as node's own randomUUID does): one
 * randomFillSync call costs about as much for 4 KiB as for 10 bytes, and order creation takes two
 * ids per order. Every byte is handed out once.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function takeRandom(target: Buffer, offset: number): void {
  const length = target.length - offset;
  if (poolOffset + length > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  pool.copy(target, offset, poolOffset, poolOffset + length);
  poolOffset += length;
}
