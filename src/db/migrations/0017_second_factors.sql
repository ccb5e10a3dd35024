-- Second factors beyond TOTP and the limits on guessing them (DESIGN.md 12).

-- One row per wrong second-factor code (TOTP at login, TOTP or passkey at a step-up). Five within
-- 15 minutes lock that operator's second factor: every replica reads the same rows. Rows older than
-- the window never count again; the owner's unlock deletes an operator's rows.
CREATE TABLE operator_factor_failures (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  operator_id  uuid NOT NULL REFERENCES operators (id),
  failed_at    timestamptz NOT NULL,
  -- 'login' or 'step_up'
  context      text NOT NULL
);
CREATE INDEX operator_factor_failures_operator_idx ON operator_factor_failures (operator_id, failed_at);

-- WebAuthn credentials (passkeys). The public key is COSE as returned at registration; the signature
-- counter only grows (a lower one means a cloned authenticator and is refused).
CREATE TABLE operator_passkeys (
  id             uuid PRIMARY KEY,
  operator_id    uuid NOT NULL REFERENCES operators (id),
  credential_id  text NOT NULL UNIQUE,
  public_key     text NOT NULL,
  counter        bigint NOT NULL DEFAULT 0,
  transports     text[] NOT NULL DEFAULT '{}',
  name           text NOT NULL,
  created_at     timestamptz NOT NULL,
  last_used_at   timestamptz
);
CREATE INDEX operator_passkeys_operator_idx ON operator_passkeys (operator_id);

-- WebAuthn challenges are stateless (a MAC under SESSION_SECRET carries purpose, operator and expiry);
-- a used one is recorded here until it would have expired anyway, so none is accepted twice.
CREATE TABLE webauthn_used_challenges (
  challenge   text PRIMARY KEY,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX webauthn_used_challenges_expiry_idx ON webauthn_used_challenges (expires_at);
