/** A refund's or payout's status: green once completed, red once it ended otherwise, amber on the way. */
export function PayoutStatusBadge({ status }: { status: string }) {
  const tone =
    status === "completed"
      ? "ok"
      : status === "failed" || status === "rejected" || status === "cancelled"
        ? "bad"
        : "warn";
  return (
    <span className={`badge ${tone}`} data-testid="payout-status">
      {status}
    </span>
  );
}
