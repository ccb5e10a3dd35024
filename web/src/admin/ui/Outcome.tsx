import { useState } from "react";
import { errorMessage } from "../useApi.js";

/** What an action ended with: a success (green) or a refusal (red), one line under the buttons. */
export type Outcome = { ok: boolean; text: string } | null;

/**
 * `report(action, label)` clears the last outcome and runs `action`: its text on success (null says
 * nothing, as when it navigates away), on a refusal the API's words after "label: ".
 */
export function useOutcome() {
  const [outcome, setOutcome] = useState<Outcome>(null);
  const report = async (action: () => Promise<string | null>, label?: string) => {
    setOutcome(null);
    try {
      const text = await action();
      if (text !== null) setOutcome({ ok: true, text });
    } catch (caught) {
      const why = errorMessage(caught);
      setOutcome({ ok: false, text: label === undefined ? why : `${label}: ${why}` });
    }
  };
  return { outcome, setOutcome, report };
}

export function OutcomeLine({ outcome, testId }: { outcome: Outcome; testId?: string }) {
  if (!outcome) return null;
  return (
    <p className={outcome.ok ? "notice-ok" : "error"} role="status" data-testid={testId}>
      {outcome.text}
    </p>
  );
}
