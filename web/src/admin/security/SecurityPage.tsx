import { useMe } from "../me.js";
import { PasswordForm } from "./PasswordForm.js";
import { Sessions } from "./Sessions.js";
import { TwoFactor } from "./TwoFactor.js";

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
