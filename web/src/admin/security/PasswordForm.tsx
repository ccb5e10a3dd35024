import { useState, type FormEvent } from "react";
import type { PasswordChanged } from "../../api-types.js";
import { api } from "../api.js";
import { Field } from "../ui/Field.js";
import { errorMessage } from "../useApi.js";

/** Change one's own password; the other sessions end (the built-in owner's is ADMIN_PASSWORD, not here). */
export function PasswordForm() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const reply = await api.post<PasswordChanged>("/me/password", {
        current_password: current,
        new_password: next,
      });
      setMessage(`Password changed; ${reply.sessions_revoked} other session(s) ended.`);
      setCurrent("");
      setNext("");
    } catch (error) {
      setMessage(errorMessage(error));
    }
  };
  return (
    <section className="card">
      <h2>Password</h2>
      <form className="stack" onSubmit={(event) => void submit(event)}>
        <Field
          label="Current password"
          type="password"
          value={current}
          onChange={setCurrent}
          testId="current-password"
          required
        />
        <Field
          label="New password (12+ characters)"
          type="password"
          value={next}
          onChange={setNext}
          testId="new-password"
          required
        />
        <button type="submit" data-testid="change-password">
          Change password
        </button>
        {message && <p data-testid="password-message">{message}</p>}
      </form>
    </section>
  );
}
