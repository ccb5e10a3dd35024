import { useQrCode } from "../qr.js";
import { useState, type FormEvent } from "react";
import { api } from "./api.js";
import { formatTime } from "./format.js";
import { useMe } from "./me.js";
import { errorMessage, useApi } from "./useApi.js";

interface Session {
  id: string;
  current: boolean;
  created_at: string;
  last_seen_at: string;
  revoked_at: string | null;
  ip: string | null;
  user_agent: string | null;
}

/** One's own security: password, TOTP enrolment (QR), recovery codes, sessions. */
export function SecurityPage({ onChanged }: { onChanged: () => void }) {
  const me = useMe();
  return (
    <>
      <h1>Security</h1>
      {me.totp_required && (
        <p className="error" role="alert" data-testid="totp-required">
          Two-factor authentication is required on this deployment: enrol it below to use the dashboard.
        </p>
      )}
      {!me.is_builtin && <PasswordForm />}
      <TwoFactor onChanged={onChanged} />
      <Sessions />
    </>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const reply = await api.post<{ sessions_revoked: number }>("/me/password", {
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
        <label>
          Current password
          <input
            type="password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            data-testid="current-password"
            required
          />
        </label>
        <label>
          New password (12+ characters)
          <input
            type="password"
            value={next}
            onChange={(e) => setNext(e.target.value)}
            data-testid="new-password"
            required
          />
        </label>
        <button type="submit" data-testid="change-password">
          Change password
        </button>
        {message && <p data-testid="password-message">{message}</p>}
      </form>
    </section>
  );
}

function TwoFactor({ onChanged }: { onChanged: () => void }) {
  const me = useMe();
  const [setup, setSetup] = useState<{ secret: string; otpauth_url: string } | null>(null);
  const [code, setCode] = useState("");
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const qr = useQrCode(setup?.otpauth_url ?? null);
  const run = async (action: () => Promise<void>) => {
    setError(null);
    try {
      await action();
    } catch (caught) {
      setError(errorMessage(caught));
    }
  };
  return (
    <section className="card">
      <h2>Two-factor authentication</h2>
      <p data-testid="totp-state">
        {me.totp_enabled ? `On (${me.recovery_codes_left} recovery codes left)` : "Off"}
      </p>
      {!me.totp_enabled && !setup && (
        <button
          type="button"
          data-testid="totp-start"
          onClick={() => void run(async () => setSetup(await api.post("/me/totp/setup")))}
        >
          Set up an authenticator app
        </button>
      )}
      {setup && (
        <div className="stack">
          <p>Scan this code with your authenticator app, or type the secret, then enter the first code.</p>
          {qr && (
            <img src={qr} alt="QR code of the TOTP secret" data-testid="totp-qr" width={200} height={200} />
          )}
          <code data-testid="totp-secret">{setup.secret}</code>
          <label>
            Code
            <input
              inputMode="numeric"
              value={code}
              onChange={(e) => setCode(e.target.value)}
              data-testid="totp-confirm-code"
            />
          </label>
          <button
            type="button"
            data-testid="totp-confirm"
            onClick={() =>
              void run(async () => {
                const reply = await api.post<{ recovery_codes: string[] }>("/me/totp/confirm", {
                  totp_code: code,
                });
                setCodes(reply.recovery_codes);
                setSetup(null);
                setCode("");
              })
            }
          >
            Turn on
          </button>
        </div>
      )}
      {me.totp_enabled && (
        <div className="stack">
          <label>
            Code from your app
            <input
              inputMode="numeric"
              value={code}
              onChange={(e) => setCode(e.target.value)}
              data-testid="totp-code"
            />
          </label>
          <div className="actions">
            <button
              type="button"
              data-testid="new-recovery-codes"
              onClick={() =>
                void run(async () => {
                  const reply = await api.post<{ recovery_codes: string[] }>("/me/recovery-codes", {
                    totp_code: code,
                  });
                  setCodes(reply.recovery_codes);
                  setCode("");
                })
              }
            >
              New recovery codes
            </button>
            <button
              type="button"
              data-testid="totp-disable"
              onClick={() =>
                void run(async () => {
                  await api.post("/me/totp/disable", { totp_code: code });
                  setCode("");
                  onChanged();
                })
              }
            >
              Turn off
            </button>
          </div>
        </div>
      )}
      {codes && (
        <div className="secret-once" data-testid="recovery-codes">
          <p>Recovery codes: each works once in place of a code. They are shown only now; keep them safe.</p>
          <ul className="mono">
            {codes.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
          <button
            type="button"
            data-testid="recovery-codes-done"
            onClick={() => {
              setCodes(null);
              onChanged();
            }}
          >
            I have saved them
          </button>
        </div>
      )}
      {error && (
        <p className="error" role="alert" data-testid="totp-error">
          {error}
        </p>
      )}
    </section>
  );
}

function Sessions() {
  const sessions = useApi(() => api.get<{ data: Session[] }>("/sessions"), "sessions");
  const [error, setError] = useState<string | null>(null);
  if (sessions.state !== "ok") return <p>{sessions.state === "error" ? sessions.message : "Loading…"}</p>;
  return (
    <section className="card">
      <h2>Sessions</h2>
      <table data-testid="sessions">
        <thead>
          <tr>
            <th>Started</th>
            <th>Last seen</th>
            <th>Address</th>
            <th>Browser</th>
            <th />
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
      {error && <p className="error">{error}</p>}
    </section>
  );
}
