import { useState, type FormEvent } from "react";
import { api, ApiError } from "./api.js";
import { signInPasskey } from "./passkeys.js";
import { ErrorAlert } from "./ui/ErrorAlert.js";
import { Field } from "./ui/Field.js";
import { errorMessage } from "./useApi.js";

/** The login: the owner's ADMIN_PASSWORD alone, or an operator's email and password; a TOTP code when enrolled. */
export function Login({ onIn }: { onIn: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [totpCode, setTotpCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent | null, withPasskey = false) => {
    event?.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post("/auth/login", {
        password,
        ...(email.trim() ? { email: email.trim() } : {}),
        ...(withPasskey
          ? { passkey: await signInPasskey() }
          : totpCode.trim()
            ? { totp_code: totpCode.trim() }
            : {}),
      });
      onIn();
    } catch (caught) {
      const code = caught instanceof ApiError ? caught.code : "";
      setError(
        code === "INVALID_PASSWORD"
          ? "Wrong password."
          : code === "TOTP_REQUIRED"
            ? "Enter the code from your authenticator app (or a recovery code), or use your passkey."
            : code === "TOTP_INVALID"
              ? "That code is wrong or was already used; wait for the next one."
              : code === "PASSKEY_INVALID"
                ? "That passkey was not accepted."
                : errorMessage(caught),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="card">
      <h1>Stablegate admin</h1>
      <form onSubmit={(event) => void submit(event)} className="stack">
        <Field
          label="Email (leave empty for the owner's admin password)"
          type="email"
          autoComplete="username"
          value={email}
          onChange={setEmail}
          testId="email"
        />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
          testId="password"
          required
        />
        <Field
          label="Authenticator code (if two-factor authentication is on)"
          inputMode="numeric"
          autoComplete="one-time-code"
          value={totpCode}
          onChange={setTotpCode}
          testId="totp"
        />
        <button type="submit" disabled={busy} data-testid="login">
          Log in
        </button>
        <button
          type="button"
          disabled={busy || password === ""}
          data-testid="login-passkey"
          onClick={() => void submit(null, true)}
        >
          Log in with a passkey
        </button>
        <ErrorAlert error={error} testId="login-error" />
      </form>
    </main>
  );
}
