import { useState } from "react";
import type { Passkeys as PasskeyList } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime } from "../format.js";
import { useMe } from "../me.js";
import { askStepUp, registerPasskey } from "../passkeys.js";
import { ErrorAlert } from "../ui/ErrorAlert.js";
import { Field } from "../ui/Field.js";
import { useApi, errorMessage } from "../useApi.js";

/**
 * Passkeys: register (current password, and a current factor where one exists), name, remove (a
 * step-up; one's other sessions end).
 */
export function Passkeys({ onChanged }: { onChanged: () => void }) {
  const me = useMe();
  const list = useApi(() => api.get<PasskeyList>("/me/passkeys"), "passkeys");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<void>) => {
    setError(null);
    setBusy(true);
    try {
      await action();
      list.reload();
      onChanged();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };
  const proof = async (): Promise<Record<string, unknown>> => {
    if (me.passkeys > 0) return { current_password: password, ...(await askStepUp(me, "Add a passkey")) };
    return { current_password: password, ...(me.totp_enabled ? { totp_code: code.trim() } : {}) };
  };
  return (
    <section className="card">
      <h2>Passkeys</h2>
      {list.state === "ok" && list.data.data.length > 0 ? (
        <ul className="stack" data-testid="passkey-list">
          {list.data.data.map((key) => (
            <li key={key.id} data-testid="passkey" data-name={key.name}>
              <strong>{key.name}</strong> · added {formatTime(key.created_at)}
              {key.last_used_at && ` · last used ${formatTime(key.last_used_at)}`}{" "}
              <button
                type="button"
                data-testid="passkey-rename"
                onClick={() => {
                  const next = window.prompt("New name for this passkey", key.name);
                  if (next?.trim())
                    void run(() => api.patch(`/me/passkeys/${key.id}`, { name: next.trim() }));
                }}
              >
                Rename
              </button>{" "}
              <button
                type="button"
                data-testid="passkey-remove"
                onClick={() =>
                  void run(async () => {
                    const factor = await askStepUp(me, "Remove a passkey");
                    if (factor !== undefined) await api.del(`/me/passkeys/${key.id}`, factor);
                  })
                }
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p data-testid="passkeys-none">{list.state === "error" ? list.message : "No passkeys yet."}</p>
      )}
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          void run(async () => {
            await registerPasskey(name.trim() || "Passkey", await proof());
            setName("");
            setPassword("");
            setCode("");
          });
        }}
      >
        <Field
          label="Name (e.g. Laptop, YubiKey)"
          value={name}
          onChange={setName}
          maxLength={64}
          testId="passkey-name"
        />
        <Field
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
          testId="passkey-password"
          required
        />
        {me.totp_enabled && me.passkeys === 0 && (
          <Field
            label="Code from your authenticator app"
            inputMode="numeric"
            autoComplete="one-time-code"
            value={code}
            onChange={setCode}
            testId="passkey-totp"
            required
          />
        )}
        <button type="submit" disabled={busy} data-testid="passkey-add">
          Add a passkey
        </button>
      </form>
      <ErrorAlert error={error} testId="passkey-error" />
    </section>
  );
}
