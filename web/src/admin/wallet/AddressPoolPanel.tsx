import type { Stats } from "../../api-types.js";

/** The deposit address pool: free, allocated (bound to an order or in quarantine), total. */
export function AddressPoolPanel({ pool }: { pool: Stats["address_pool"] }) {
  return (
    <section className="panel">
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
