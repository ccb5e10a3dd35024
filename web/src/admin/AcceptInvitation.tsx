import { useState, type FormEvent } from "react";
import type { AcceptedInvitation } from "../api-types.js";
import { api } from "./api.js";
import { Field } from "./ui/Field.js";
import { errorMessage } from "./useApi.js";

/** The one-time invitation link: /admin/invitation#token=... sets the invited operator's password. */
export function AcceptInvitation() {
  const token = new URLSearchParams(window.location.hash.slice(1)).get("token") ?? "";
  const [password, setPassword] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const reply = await api.post<AcceptedInvitation>("/auth/accept-invitation", { token, password });
      setMessage(`Password set for ${reply.email}. You can log in now.`);
      window.history.replaceState(null, "", "/admin");
    } catch (caught) {
      setMessage(errorMessage(caught));
    }
  };
  return (
    <main className="card">
      <h1>Set your password</h1>
      <form onSubmit={(event) => void submit(event)} className="stack">
        <Field
          label="New password (12+ characters)"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={setPassword}
          testId="invitation-password"
          required
        />
        <button type="submit" data-testid="accept-invitation">
          Set password
        </button>
        {message && <p data-testid="invitation-message">{message}</p>}
        {message?.startsWith("Password set") && <a href="/admin">Log in</a>}
      </form>
    </main>
  );
}
