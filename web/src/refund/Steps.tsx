import type { RefundClaimView } from "./api.js";
import { STEPS } from "./view.js";

/** Where a claimed refund is on its way: waiting for approval, approved, sending, completed. */
export function Steps({ status }: { status: RefundClaimView["status"] }) {
  const reached = STEPS.findIndex((step) => step.status === status);
  if (reached < 0) return null;
  return (
    <ol className="steps" aria-label="Refund progress" data-testid="claim-steps">
      {STEPS.map((step, index) => (
        <li
          key={step.status}
          className={index < reached ? "done" : index === reached ? "current" : undefined}
          aria-current={index === reached ? "step" : undefined}
        >
          {step.label}
        </li>
      ))}
    </ol>
  );
}
