import { StatusBadge } from "../ui/StatusBadge.js";

/** A refund's or payout's status in words: green once completed, red once it ended otherwise. */
export function PayoutStatusBadge({ status }: { status: string }) {
  return <StatusBadge status={status} testId="payout-status" />;
}
