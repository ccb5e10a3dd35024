import type { ReactNode } from "react";
import type { CreatedRefund } from "../../api-types.js";
import { formatUsdt } from "../format.js";
import { statusLabel } from "../labels.js";
import { ErrorAlert } from "../ui/ErrorAlert.js";
import { Field } from "../ui/Field.js";
import { ClaimLink } from "./ClaimLink.js";
import { useRefundForm, type RefundFields } from "./useRefundForm.js";

/**
 * A refund form (DESIGN.md 14): amount, the payer's address (none: the reply's claim link, shown
 * once), reason; then the API's refusal or the refund created. The order page's and a stray
 * transfer's differ only in their words, test ids and what they send.
 */
export function RefundForm({
  testIdPrefix,
  heading,
  amountLabel,
  amountRequired = false,
  addressLabel,
  sender,
  submit,
  validate,
  create,
  onCreated,
  createdNote,
}: {
  /** "refund" gives refund-amount, refund-address, refund-reason, refund-error, refund-created... */
  testIdPrefix: string;
  /** The form's first row, when the form carries its own heading. */
  heading?: ReactNode;
  amountLabel: string;
  amountRequired?: boolean;
  addressLabel: string;
  /** An address a button fills in: a stray's sender (often an exchange's hot wallet, so never by default). */
  sender?: string;
  submit: { label: string; testId: string };
  validate?: (fields: RefundFields) => string | null;
  create: (fields: RefundFields) => Promise<CreatedRefund>;
  onCreated: () => void;
  /** What follows "created: <status>" in the success notice. */
  createdNote: (created: CreatedRefund) => ReactNode;
}) {
  const form = useRefundForm({ validate, create, onCreated });
  const { amount, setAmount, address, setAddress, reason, setReason, busy, error, created } = form;
  return (
    <>
      <form
        className="inline-form"
        onSubmit={(event) => void form.submit(event)}
        data-testid={`${testIdPrefix}-form`}
      >
        {heading}
        <Field
          label={amountLabel}
          value={amount}
          onChange={setAmount}
          inputMode="decimal"
          placeholder={amountRequired ? "5" : undefined}
          testId={`${testIdPrefix}-amount`}
          required={amountRequired}
        />
        <Field
          label={addressLabel}
          value={address}
          onChange={setAddress}
          className="mono"
          maxLength={64}
          autoComplete="off"
          spellCheck={false}
          testId={`${testIdPrefix}-address`}
        />
        {sender !== undefined && (
          <button
            type="button"
            onClick={() => setAddress(sender)}
            title="Often an exchange's hot wallet: use it only when you know it is the payer's own"
            data-testid={`${testIdPrefix}-use-sender`}
          >
            Use the sender&apos;s address
          </button>
        )}
        <Field
          label="Reason"
          value={reason}
          onChange={setReason}
          maxLength={500}
          testId={`${testIdPrefix}-reason`}
        />
        <button type="submit" disabled={busy} data-testid={submit.testId}>
          {submit.label}
        </button>
      </form>
      <ErrorAlert error={error} testId={`${testIdPrefix}-error`} />
      {created && (
        <div className="notice-ok" role="status" data-testid={`${testIdPrefix}-created`}>
          <p>
            Refund of {formatUsdt(created.amount)} created: {statusLabel(created.status)}
            {createdNote(created)}
          </p>
          {created.claim_url && <ClaimLink url={created.claim_url} testId={`${testIdPrefix}-claim-url`} />}
        </div>
      )}
    </>
  );
}
