/** An order's status, coloured by the stylesheet's status-<status> rule. */
export function OrderStatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}
