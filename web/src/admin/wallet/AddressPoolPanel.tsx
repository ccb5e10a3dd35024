import type { Stats } from "../../api-types.js";

type Pool = Stats["address_pool"];
type FamilyPool = Stats["address_pools"][number];

/** How the console names a chain family's pool. */
const FAMILY_NAMES: Record<string, string> = { tron: "TRON", evm: "EVM (every EVM chain)" };

/**
 * The deposit address pools: free, allocated (bound to an order or in quarantine), total; one
 * column per chain family when more than one is enabled (each family's pool serves its own chains).
 */
export function AddressPoolPanel({ pool, pools }: { pool: Pool; pools?: FamilyPool[] }) {
  if (!pools || pools.length <= 1) {
    return (
      <section className="panel" data-testid="address-pool">
        <h2>Address pool</h2>
        <dl>
          <dt>Free</dt>
          <dd>{pool.free}</dd>
          <dt>Allocated</dt>
          <dd>{pool.allocated}</dd>
          <dt>Total</dt>
          <dd>{pool.total}</dd>
        </dl>
      </section>
    );
  }
  return (
    <section className="panel" data-testid="address-pool">
      <h2>Address pools</h2>
      {pools.map((p) => (
        <div key={p.family} data-testid={`address-pool-${p.family}`}>
          <h3>{FAMILY_NAMES[p.family] ?? p.family}</h3>
          <dl>
            <dt>Free</dt>
            <dd>{p.free}</dd>
            <dt>Allocated</dt>
            <dd>{p.allocated}</dd>
            <dt>Total</dt>
            <dd>{p.total}</dd>
          </dl>
        </div>
      ))}
    </section>
  );
}
