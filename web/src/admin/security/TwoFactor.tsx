import { useState } from "react";
import type { RecoveryCodes as RecoveryCodesReply, TotpSetup } from "../../api-types.js";
import { useQrCode } from "../../qr.js";
import { api } from "../api.js";
import { useMe } from "../me.js";
import { stepUpPasskey } from "../passkeys.js";
import { ErrorAlert } from "../ui/ErrorAlert.js";
import { Field } from "../ui/Field.js";
import { errorMessage } from "../useApi.js";
import { RecoveryCodes } from "./RecoveryCodes.js";

/**
 * TOTP: enrol (QR and secret, then a first code), new recovery codes, turn off. Each change needs the
 * current password and, where a second factor exists, a current one (a code, or a passkey).
 */
export function TwoFactor({ onChanged }: { onChanged: () => void }) {
  const me = useMe();
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [code, setCode] = useState("");
  const [password, setPassword] = useState("");
  /** The proof a change needs: the password, and the code (or, with passkeys only, a passkey). */
  const proof = async (): Promise<Record<string, unknown>> => {
    if (me.totp_enabled) return { current_password: password, totp_code: code.trim() };
    if (me.passkeys > 0) return { current_password: password, passkey: await stepUpPasskey() };
    return { current_password: password };
  };
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
      {!setup && (
        <Field
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
          testId="totp-password"
        />
      )}
      {!me.totp_enabled && !setup && (
        <button
          type="button"
          data-testid="totp-start"
          onClick={() =>
            void run(async () => {
              setSetup(await api.post<TotpSetup>("/me/totp/setup", await proof()));
              setPassword("");
            })
          }
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
          <Field
            label="Code"
            inputMode="numeric"
            value={code}
            onChange={setCode}
            testId="totp-confirm-code"
          />
          <button
            type="button"
            data-testid="totp-confirm"
            onClick={() =>
              void run(async () => {
                const reply = await api.post<RecoveryCodesReply>("/me/totp/confirm", { totp_code: code });
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
          <Field
            label="Code from your app"
            inputMode="numeric"
            value={code}
            onChange={setCode}
            testId="totp-code"
          />
          <div className="actions">
            <button
              type="button"
              data-testid="new-recovery-codes"
              onClick={() =>
                void run(async () => {
                  const reply = await api.post<RecoveryCodesReply>("/me/recovery-codes", await proof());
                  setCodes(reply.recovery_codes);
                  setCode("");
                  setPassword("");
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
                  await api.post("/me/totp/disable", await proof());
                  setCode("");
                  setPassword("");
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
        <RecoveryCodes
          codes={codes}
          onSaved={() => {
            setCodes(null);
            onChanged();
          }}
        />
      )}
      <ErrorAlert error={error} testId="totp-error" />
    </section>
  );
}
