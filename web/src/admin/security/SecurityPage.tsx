import { useMe } from "../me.js";
import { Passkeys } from "./Passkeys.js";
import { PasswordForm } from "./PasswordForm.js";
import { Sessions } from "./Sessions.js";
import { TwoFactor } from "./TwoFactor.js";

/** One's own security: password, TOTP enrolment (QR), recovery codes, passkeys, sessions. */
export function SecurityPage({ onChanged }: { onChanged: () => void }) {
  const me = useMe();
  return (
    <>
      <h1>Security</h1>
      {me.totp_required && (
        <p className="error" role="alert" data-testid="totp-required">
          Two-factor authentication is required on this deployment: add an authenticator app or a passkey
          below to use the dashboard.
        </p>
      )}
      {!me.is_builtin && <PasswordForm />}
      {me.second_factor_locked_until && (
        <p className="error" role="alert" data-testid="factor-locked">
          Too many wrong second-factor codes: your step-ups and second-factor sign-ins are locked until{" "}
          {new Date(me.second_factor_locked_until).toLocaleString()}, unless the owner unlocks them.
        </p>
      )}
      <TwoFactor onChanged={onChanged} />
      <Passkeys onChanged={onChanged} />
      <Sessions />
    </>
  );
}
