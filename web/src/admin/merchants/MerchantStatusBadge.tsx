/** A merchant's state: active, or suspended (its API key refused). */
export function MerchantStatusBadge({ active }: { active: boolean }) {
  return <span className={active ? "badge ok" : "badge bad"}>{active ? "Active" : "Suspended"}</span>;
}
