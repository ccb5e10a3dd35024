import { useState } from "react";
import type { Payout } from "../../api-types.js";
import { useCan } from "../me.js";
import { DecisionDialog } from "./DecisionDialog.js";
import { DECIDABLE, DECISION_HINT, DECISION_PERMISSION, type Decision } from "./decisions.js";

/** Approve, reject or cancel, each in an in-page dialog. Hidden when the role may not. */
export function PayoutActions({ payout, onDone }: { payout: Payout; onDone: () => void }) {
  const can = useCan();
  const [open, setOpen] = useState<Decision | null>(null);
  const allowed = (["approve", "reject", "cancel"] as const).filter(
    (decision) => can(DECISION_PERMISSION[decision]) && DECIDABLE[decision].includes(payout.status),
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
