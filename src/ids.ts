import { randomUUID } from "node:crypto";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A malformed id is answered like an unknown one (404), so callers check before querying. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export const newId = randomUUID;
