import { StatusBadge } from "../ui/StatusBadge.js";

/** An order's status in words ("Awaiting payment", "Webhook failed"). */
export function OrderStatusBadge({ status }: { status: string }) {
  return <StatusBadge status={status} />;
}
