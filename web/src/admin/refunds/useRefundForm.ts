import { useState, type FormEvent } from "react";
import type { CreatedRefund } from "../../api-types.js";
import { errorMessage } from "../useApi.js";

export interface RefundFields {
  /** Trimmed; empty when the operator left the field empty. */
  amount: string;
  address: string;
  reason: string;
}

/**
 * The state and the submit of a refund form (RefundForm: the order page's and a stray transfer's).
 * The fields are trimmed, `validate` may refuse before any request, the API's error is shown as it
 * came, and after a success the created refund is kept (its claim_url is shown once) and the
 * fields are cleared.
 */
export function useRefundForm(options: {
  validate?: (fields: RefundFields) => string | null;
  create: (fields: RefundFields) => Promise<CreatedRefund>;
  onCreated: () => void;
}) {
  const [amount, setAmount] = useState("");
  const [address, setAddress] = useState("");
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedRefund | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setCreated(null);
    const fields = { amount: amount.trim(), address: address.trim(), reason: reason.trim() };
    const refused = options.validate?.(fields) ?? null;
    if (refused !== null) {
      setError(refused);
      return;
    }
    setBusy(true);
    try {
      setCreated(await options.create(fields));
      setAmount("");
      setAddress("");
      setReason("");
      options.onCreated();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };
  return { amount, setAmount, address, setAddress, reason, setReason, busy, error, created, submit };
}
