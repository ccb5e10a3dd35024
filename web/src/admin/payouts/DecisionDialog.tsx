import { useEffect, useRef, useState, type FormEvent } from "react";
import type { Payout } from "../../api-types.js";
import { api, ApiError } from "../api.js";
import { formatTime, formatUsdt } from "../format.js";
import { useMe } from "../me.js";
import { stepUpPasskey } from "../passkeys.js";
import { Link } from "../router.js";
import { ErrorAlert } from "../ui/ErrorAlert.js";
import { Field } from "../ui/Field.js";
import { errorMessage } from "../useApi.js";
import { DECISION_HINT, decisionErrorText, type Decision } from "./decisions.js";
import { actorLabel } from "../labels.js";

const DECISION_TEXT: Record<Decision, { title: string; button: string }> = {
  approve: { title: "Approve", button: "Approve" },
  reject: { title: "Reject", button: "Reject" },
  cancel: { title: "Cancel", button: "Cancel it" },
};

/**
 * A modal <dialog>: approve and reject take a fresh second factor from every operator (DESIGN.md 12):
 * a TOTP code or a passkey; one without any is sent to the Security page to enrol. Reject needs a
 * reason; cancel takes one. The server's refusal is shown with its code.
 */
export function DecisionDialog({
  payout,
  decision,
  onClose,
  onDone,
}: {
  payout: Payout;
  decision: Decision;
  onClose: () => void;
  onDone: () => void;
}) {
  const me = useMe();
  const ref = useRef<HTMLDialogElement>(null);
  const [code, setCode] = useState("");
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const stepsUp = decision !== "cancel";
  // The code field shows for an operator with TOTP, and whenever the server asks for one (an
  // operator who enrolled in another tab since this page loaded).
  const [askCode, setAskCode] = useState(stepsUp && me.totp_enabled);
  const [mustEnrol, setMustEnrol] = useState(stepsUp && !me.totp_enabled && me.passkeys === 0);
  const needsReason = decision === "reject";
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  const submit = async (event: FormEvent | null, withPasskey = false) => {
    event?.preventDefault();
    setError(null);
    if (needsReason && reason.trim() === "") {
      setError("Give a reason: it is kept with it and in the audit log.");
      return;
    }
    setBusy(true);
    try {
      await api.post(`/payouts/${payout.id}/${decision}`, {
        ...(reason.trim() ? { reason: reason.trim() } : {}),
        ...(withPasskey ? { passkey: await stepUpPasskey() } : askCode ? { totp_code: code.trim() } : {}),
      });
      onDone();
    } catch (caught) {
      if (caught instanceof ApiError && caught.code === "SECOND_FACTOR_REQUIRED") {
        setMustEnrol(true);
        setError(`${caught.message} (${caught.code})`);
      } else if (caught instanceof ApiError && caught.code === "TOTP_REQUIRED") {
        setMustEnrol(false);
        // The server's words: a fresh code is needed, or (ADMIN_REQUIRE_2FA) enrol first.
        setAskCode(true);
        setError(`${caught.message} (${caught.code})`);
      } else {
        setError(
          caught instanceof ApiError ? decisionErrorText(caught.code, caught.message) : errorMessage(caught),
        );
      }
      setCode("");
    } finally {
      setBusy(false);
    }
  };
  const titleId = `decision-title-${payout.id}`;
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      data-testid="decision-dialog"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <form className="stack" onSubmit={(event) => void submit(event)}>
        <h2 id={titleId}>
          {DECISION_TEXT[decision].title} {payout.kind} of {formatUsdt(payout.amount)}
        </h2>
        <p className="muted">
          {payout.address ? (
            <>
              To <span className="mono">{payout.address}</span>
            </>
          ) : (
            "No address yet: the payer has not claimed it."
          )}
          <br />
          Created by {actorLabel(payout.created_by)} · {formatTime(payout.created_at)}
        </p>
        <p data-testid="decision-hint">{DECISION_HINT[decision]}</p>
        {askCode && (
          <Field
            label="Code from your authenticator app"
            inputMode="numeric"
            autoComplete="one-time-code"
            value={code}
            onChange={setCode}
            testId="decision-totp"
            autoFocus
            required
          />
        )}
        {decision !== "approve" && (
          <Field
            label={`Reason${needsReason ? "" : " (optional)"}`}
            value={reason}
            onChange={setReason}
            maxLength={500}
            testId="decision-reason"
            autoFocus
          />
        )}
        {mustEnrol && (
          <p className="muted" data-testid="decision-enrol">
            Approving or rejecting money out needs a second factor.{" "}
            <Link to="/admin/security" testId="decision-enrol-link">
              Add an authenticator app or a passkey on the Security page
            </Link>
            .
          </p>
        )}
        <ErrorAlert error={error} testId="decision-error" />
        <p className="actions">
          {stepsUp && me.passkeys > 0 && (
            <button
              type="button"
              disabled={busy}
              data-testid="decision-passkey"
              onClick={() => void submit(null, true)}
            >
              {DECISION_TEXT[decision].button} with a passkey
            </button>
          )}
          <button type="submit" disabled={busy} data-testid="decision-confirm">
            {DECISION_TEXT[decision].button}
          </button>
          <button type="button" onClick={onClose} data-testid="decision-close">
            Close
          </button>
        </p>
      </form>
    </dialog>
  );
}
