/**
 * The claim of free addresses from derivation index `floor` (an SQL expression) up, shared with the
 * tests that check its plan. It walks the list of free addresses (free_addresses, migration 0016)
 * in index order from `floor`, so it never reads the dead entries that earlier claims left below
 * it, and locks each listed address's row of `addresses` with it: whatever else changes a free
 * address (a stray transfer's hold) waits for the claim, or is skipped by it. The UPDATE that binds
 * the address then changes no indexed column of `addresses` (HOT), and the pool trigger takes the
 * address off the list in the same statement. `family` (an SQL expression) picks the pool
 * (migration 0022); by default the pool every address written before families belongs to.
 */
export function claimFreeAddresses(floor: string, family = FIRST_FAMILY): string {
  return `SELECT f.address_id AS id, f.address, f.derivation_index
    FROM free_addresses f JOIN addresses a ON a.id = f.address_id
    WHERE f.family = ${family} AND f.derivation_index >= ${floor} ORDER BY f.derivation_index`;
}

/** The family of the addresses written before there were families (the column's default, 0022). */
const FIRST_FAMILY = "'tron'";
