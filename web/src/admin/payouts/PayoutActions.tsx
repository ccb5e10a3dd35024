import { useState } from "react";
import type { Payout, PayoutActionState } from "../../api-types.js";
import { useCan } from "../me.js";
import { DecisionDialog } from "./DecisionDialog.js";
import { DECIDABLE, DECISION_HINT, DECISION_PERMISSION, type Decision } from "./decisions.js";

/**
 * Approve, reject or cancel, each in an in-page dialog. Hidden when the role may not. With the
 * detail's `actions` (the server's decision from status, four eyes and role) it offers exactly the
 * allowed ones; without (a list row) it decides from the status.
 */
export function PayoutActions({
  payout,
  actions,
  onDone,
}: {
  payout: Payout;
  actions?: PayoutActionState[];
  onDone: () => void;
}) {
  const can = useCan();
  const [open, setOpen] = useState<Decision | null>(null);
  const allowed = (["approve", "reject", "cancel"] as const).filter((decision) =>
    actions
      ? actions.some((a) => a.action === decision && a.allowed)
      : can(DECISION_PERMISSION[decision]) && DECIDABLE[decision].includes(payout.status),
  );
  if (allowed.length === 0) return null;
  return (
    <>
      {allowed.map((decision) => (
        <button
          key={decision}
          type="button"
          data-testid={`${decision}-payout`}
          title={DECISION_HINT[decision]}
          className={decision === "approve" ? "primary" : decision === "reject" ? "danger" : undefined}
          onClick={() => setOpen(decision)}
        >
          {decision === "approve" ? "Approve" : decision === "reject" ? "Reject" : "Cancel"}
        </button>
      ))}
      {open && (
        <DecisionDialog
          payout={payout}
          decision={open}
          onClose={() => setOpen(null)}
          onDone={() => {
            setOpen(null);
            onDone();
          }}
        />
      )}
    </>
  );
}
