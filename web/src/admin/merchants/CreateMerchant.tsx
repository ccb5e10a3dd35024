import { useState, type FormEvent } from "react";
import type { MerchantWithKey } from "../../api-types.js";
import { api } from "../api.js";
import { ErrorAlert } from "../ui/ErrorAlert.js";
import { Field } from "../ui/Field.js";
import { errorMessage } from "../useApi.js";

/** A new merchant: name and webhook secret; the reply's API key is shown once (SecretOnce). */
export function CreateMerchant({ onCreated }: { onCreated: (created: MerchantWithKey) => void }) {
  const [name, setName] = useState("");
  const [secret, setSecret] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const created = await api.post<MerchantWithKey>("/merchants", { name, webhook_secret: secret });
      setName("");
      setSecret("");
      onCreated(created);
    } catch (caught) {
      setError(errorMessage(caught));
    }
  };
  return (
    <form className="panel inline-form" onSubmit={(event) => void submit(event)}>
      <h2>New merchant</h2>
      <Field label="Name" value={name} onChange={setName} maxLength={255} testId="merchant-name" />
      <Field
        label="Webhook secret (8-255 characters)"
        value={secret}
        onChange={setSecret}
        maxLength={255}
        autoComplete="off"
        testId="merchant-secret"
      />
      <button type="submit" data-testid="create-merchant">
        Create
      </button>
      <ErrorAlert error={error} testId="merchant-error" />
    </form>
  );
}
