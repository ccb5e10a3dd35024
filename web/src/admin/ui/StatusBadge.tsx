import { statusLabel, statusTone } from "../labels.js";

/** A status in words ("Awaiting approval"), colored by its tone; the code stays in data-status. */
export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  return (
    <span className={`badge ${statusTone(status)}`} data-status={status} data-testid={testId}>
      {statusLabel(status)}
    </span>
  );
}
