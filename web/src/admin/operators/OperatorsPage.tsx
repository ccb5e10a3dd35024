import { useState } from "react";
import type { OperatorList } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime } from "../format.js";
import { useMe } from "../me.js";
import { askStepUp } from "../passkeys.js";
import { ErrorAlert } from "../ui/ErrorAlert.js";
import { useAction, useApi } from "../useApi.js";
import { CreateOperator } from "./CreateOperator.js";
import { roleLabel } from "../labels.js";
import { RoleSelect } from "./RoleSelect.js";

/** The owner's operator accounts: create (password or invitation), change role, disable. */
export function OperatorsPage() {
  const me = useMe();
  const list = useApi(() => api.get<OperatorList>("/operators"), "operators");
  const action = useAction(list.reload);
  const [invitation, setInvitation] = useState<string | null>(null);
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
      <ErrorAlert error={action.error} testId="operators-error" />
      {list.state === "ok" ? (
        <div className="table-scroll" tabIndex={0}>
          <table data-testid="operators">
            <thead>
              <tr>
                <th>Name</th>
                <th>Email</th>
                <th>Role</th>
                <th>2FA</th>
                <th>State</th>
                <th>Created</th>
                <th>
                  <span className="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((o) => (
                <tr key={o.id} data-testid="operator-row" data-email={o.email ?? "owner"}>
                  <td>{o.name}</td>
                  <td>{o.email ?? "Signs in with the admin password"}</td>
                  <td>
                    {o.is_builtin ? (
                      roleLabel(o.role)
                    ) : (
                      <RoleSelect
                        value={o.role}
                        testId="operator-role"
                        label={`Role of ${o.email ?? o.name}`}
                        onChange={(role) => {
                          void action.run(async () => {
                            const factor = await askStepUp(me, "Change a role");
                            if (factor !== undefined)
                              await api.put(`/operators/${o.id}`, { role, ...factor });
                          });
                        }}
                      />
                    )}
                  </td>
                  <td data-testid="operator-2fa">
                    {[
                      o.totp_enabled ? "Authenticator app" : null,
                      o.passkeys > 0 ? `${o.passkeys} passkey(s)` : null,
                    ]
                      .filter(Boolean)
                      .join(", ") || "Off"}
                    {o.second_factor_locked_until ? " (locked)" : ""}
                  </td>
                  <td>{o.invitation_pending ? "Invited" : o.is_active ? "Active" : "Disabled"}</td>
                  <td>{formatTime(o.created_at)}</td>
                  <td>
                    {!o.is_builtin && o.id !== me.id && (
                      <button
                        type="button"
                        data-testid="operator-toggle"
                        onClick={() =>
                          void action.run(async () => {
                            // Re-enabling is a step-up action; disabling only takes access away.
                            const factor = o.is_active ? {} : await askStepUp(me, "Re-enable an operator");
                            if (factor !== undefined)
                              await api.put(`/operators/${o.id}`, { is_active: !o.is_active, ...factor });
                          })
                        }
                      >
                        {o.is_active ? "Disable" : "Enable"}
                      </button>
                    )}
                    {o.second_factor_locked_until && o.id !== me.id && (
                      <button
                        type="button"
                        data-testid="operator-unlock"
                        title={`Locked until ${formatTime(o.second_factor_locked_until)}`}
                        onClick={() =>
                          void action.run(async () => {
                            const factor = await askStepUp(me, "Unlock a second factor");
                            if (factor !== undefined)
                              await api.post(`/operators/${o.id}/unlock-second-factor`, factor);
                          })
                        }
                      >
                        Unlock second factor
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>{list.state === "error" ? list.message : "Loading…"}</p>
      )}
    </>
  );
}
