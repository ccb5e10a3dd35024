import { useState, type FormEvent } from "react";
import { api, type Me } from "./api.js";
import { formatTime } from "./format.js";
import { askTotpCode, useMe } from "./me.js";
import { errorMessage, useApi } from "./useApi.js";

interface Operator {
  id: string;
  email: string | null;
  name: string;
  role: Me["role"];
  is_builtin: boolean;
  is_active: boolean;
  totp_enabled: boolean;
  invitation_pending: boolean;
  created_at: string;
}
const ROLES: Me["role"][] = ["owner", "admin", "support", "viewer"];

/** The owner's operator accounts: create (password or invitation), change role, disable. */
export function OperatorsPage() {
  const me = useMe();
  const list = useApi(() => api.get<{ data: Operator[] }>("/operators"), "operators");
  const [error, setError] = useState<string | null>(null);
  const [invitation, setInvitation] = useState<string | null>(null);
  const act = async (action: () => Promise<unknown>) => {
    setError(null);
    try {
      await action();
      list.reload();
    } catch (caught) {
      setError(errorMessage(caught));
    }
  };
  return (
    <>
      <h1>Operators</h1>
      <CreateOperator
        onCreated={(url) => {
          setInvitation(url);
          list.reload();
        }}
      />
      {invitation && (
        <div className="secret-once" data-testid="invitation">
          <p>Send this one-time link to the new operator (valid 7 days, shown only now):</p>
          <code data-testid="invitation-url">{invitation}</code>
        </div>
      )}
      {error && (
        <p className="error" role="alert" data-testid="operators-error">
          {error}
        </p>
      )}
      {list.state === "ok" ? (
        <table data-testid="operators">
          <thead>
            <tr>
              <th>Name</th>
              <th>Email</th>
              <th>Role</th>
              <th>2FA</th>
              <th>State</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((o) => (
              <tr key={o.id} data-testid="operator-row" data-email={o.email ?? "owner"}>
                <td>{o.name}</td>
                <td>{o.email ?? "(ADMIN_PASSWORD)"}</td>
                <td>
                  {o.is_builtin ? (
                    o.role
                  ) : (
                    <select
                      value={o.role}
                      data-testid="operator-role"
                      onChange={(event) => {
                        const role = event.target.value;
                        const code = askTotpCode(me, "Change a role");
                        if (code === undefined) return;
                        void act(() =>
                          api.put(`/operators/${o.id}`, { role, ...(code ? { totp_code: code } : {}) }),
                        );
                      }}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>
                  )}
                </td>
                <td>{o.totp_enabled ? "on" : "off"}</td>
                <td>{o.invitation_pending ? "invited" : o.is_active ? "active" : "disabled"}</td>
                <td>{formatTime(o.created_at)}</td>
                <td>
                  {!o.is_builtin && o.id !== me.id && (
                    <button
                      type="button"
                      data-testid="operator-toggle"
                      onClick={() =>
                        void act(() => api.put(`/operators/${o.id}`, { is_active: !o.is_active }))
                      }
                    >
                      {o.is_active ? "Disable" : "Enable"}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>{list.state === "error" ? list.message : "Loading…"}</p>
      )}
    </>
  );
}

function CreateOperator({ onCreated }: { onCreated: (invitationUrl: string | null) => void }) {
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState<Me["role"]>("viewer");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const reply = await api.post<{ invitation_url: string | null }>("/operators", {
        email,
        name,
        role,
        ...(password ? { password } : {}),
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
      <label>
        Email
        <input
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          data-testid="new-operator-email"
          required
        />
      </label>
      <label>
        Name
        <input
          value={name}
          onChange={(e) => setName(e.target.value)}
          data-testid="new-operator-name"
          required
        />
      </label>
      <label>
        Role
        <select
          value={role}
          onChange={(e) => setRole(e.target.value as Me["role"])}
          data-testid="new-operator-role"
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <label>
        Initial password (leave empty to send an invitation link)
        <input
          type="password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          data-testid="new-operator-password"
        />
      </label>
      <button type="submit" data-testid="create-operator">
        Create
      </button>
      {error && <p className="error">{error}</p>}
    </form>
  );
}
