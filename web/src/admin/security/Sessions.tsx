import { useState } from "react";
import type { SessionList } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime } from "../format.js";
import { errorMessage, useApi } from "../useApi.js";

/** One's own sessions (browsers signed in): revoke any but this one. */
export function Sessions() {
  const sessions = useApi(() => api.get<SessionList>("/sessions"), "sessions");
  const [error, setError] = useState<string | null>(null);
  if (sessions.state !== "ok") return <p>{sessions.state === "error" ? sessions.message : "Loading…"}</p>;
  return (
    <section className="card">
      <h2>Sessions</h2>
      <div className="table-scroll" tabIndex={0}>
        <table data-testid="sessions">
          <thead>
            <tr>
              <th>Started</th>
              <th>Last seen</th>
              <th>Address</th>
              <th>Browser</th>
              <th>
                <span className="offscreen">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.data.map((s) => (
              <tr key={s.id} data-testid="session-row">
                <td>{formatTime(s.created_at)}</td>
                <td>{formatTime(s.last_seen_at)}</td>
                <td className="mono">{s.ip ?? ""}</td>
                <td>{s.user_agent?.slice(0, 40) ?? ""}</td>
                <td>
                  {s.current ? (
                    "this session"
                  ) : s.revoked_at ? (
                    "ended"
                  ) : (
                    <button
                      type="button"
                      data-testid="revoke-session"
                      onClick={() =>
                        void api
                          .del(`/sessions/${s.id}`)
                          .then(sessions.reload, (e: unknown) => setError(errorMessage(e)))
                      }
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {error && <p className="error">{error}</p>}
    </section>
  );
}
