import { useState, type FormEvent } from "react";
import type { CreatedOperator, Role } from "../../api-types.js";
import { api } from "../api.js";
import { useMe } from "../me.js";
import { askStepUp } from "../passkeys.js";
import { Field } from "../ui/Field.js";
import { errorMessage } from "../useApi.js";
import { RoleSelect } from "./RoleSelect.js";

/** A new operator: with an initial password, or without one (the reply's invitation link). */
export function CreateOperator({ onCreated }: { onCreated: (invitationUrl: string | null) => void }) {
  const me = useMe();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      // Creating an operator is a step-up action.
      const factor = await askStepUp(me, "Create an operator");
      if (factor === undefined) return;
      const reply = await api.post<CreatedOperator>("/operators", {
        email,
        name,
        role,
        ...(password ? { password } : {}),
        ...factor,
      });
      setEmail("");
      setName("");
      setPassword("");
      onCreated(reply.invitation_url);
    } catch (caught) {
      setError(errorMessage(caught));
    }
  };
  return (
    <form className="card stack" onSubmit={(event) => void submit(event)}>
      <h2>New operator</h2>
      <Field
        label="Email"
        type="email"
        value={email}
        onChange={setEmail}
        testId="new-operator-email"
        required
      />
      <Field label="Name" value={name} onChange={setName} testId="new-operator-name" required />
      <label>
        Role
        <RoleSelect value={role} onChange={setRole} testId="new-operator-role" />
      </label>
      <Field
        label="Initial password (leave empty to send an invitation link)"
        type="password"
        value={password}
        onChange={setPassword}
        testId="new-operator-password"
      />
      <button type="submit" data-testid="create-operator">
        Create
      </button>
      {error && <p className="error">{error}</p>}
    </form>
  );
}
