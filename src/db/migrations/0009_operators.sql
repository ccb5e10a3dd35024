-- Operator accounts, roles, TOTP, revocable sessions and the hash-chained audit log (DESIGN.md 12).

-- One row per operator. The built-in owner (the ADMIN_PASSWORD login of SPEC 4.3) is a row too, so
-- its sessions, TOTP and audit rows work like everyone's; its password stays ADMIN_PASSWORD and is
-- never stored (password_hash NULL, is_builtin true).
CREATE TABLE operators (
  id                      uuid PRIMARY KEY,
  -- stored lower-cased; NULL only for the built-in owner, who logs in with the password alone
  email                   text,
  name                    text NOT NULL,
  role                    text NOT NULL CHECK (role IN ('owner', 'admin', 'support', 'viewer')),
  is_builtin              boolean NOT NULL DEFAULT false,
  is_active               boolean NOT NULL DEFAULT true,
  -- argon2id PHC string; NULL while an invitation is open
  password_hash           text,
  -- sha256 of the one-time invitation token, and when it expires
  invitation_hash         text,
  invitation_expires_at   timestamptz,
  -- AES-256-GCM under a key derived from SESSION_SECRET; the pending one waits for its first code
  totp_secret_enc         text,
  totp_pending_secret_enc text,
  totp_enabled            boolean NOT NULL DEFAULT false,
  -- the last accepted RFC 6238 time step: a code of this step or an earlier one never works again
  totp_last_step          bigint,
  created_at              timestamptz NOT NULL,
  updated_at              timestamptz NOT NULL,
  CHECK (is_builtin OR email IS NOT NULL)
);
CREATE UNIQUE INDEX operators_email_idx ON operators (email) WHERE email IS NOT NULL;
CREATE UNIQUE INDEX operators_builtin_idx ON operators (is_builtin) WHERE is_builtin;
CREATE UNIQUE INDEX operators_invitation_idx ON operators (invitation_hash) WHERE invitation_hash IS NOT NULL;

INSERT INTO operators (id, email, name, role, is_builtin, created_at, updated_at)
VALUES ('00000000-0000-4000-8000-000000000001', NULL, 'Owner', 'owner', true, now(), now());

-- Ten single-use recovery codes per enrolment, stored as HMAC-SHA256 hashes.
CREATE TABLE operator_recovery_codes (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  operator_id  uuid NOT NULL REFERENCES operators (id),
  code_hash    text NOT NULL UNIQUE,
  used_at      timestamptz,
  created_at   timestamptz NOT NULL
);
CREATE INDEX operator_recovery_codes_operator_idx ON operator_recovery_codes (operator_id);

-- One row per login. The admin JWT carries the id; every admin request reads the row (by primary
-- key), so a revoked session stops working at once on every replica.
CREATE TABLE operator_sessions (
  id            uuid PRIMARY KEY,
  operator_id   uuid NOT NULL REFERENCES operators (id),
  created_at    timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  last_seen_at  timestamptz NOT NULL,
  revoked_at    timestamptz,
  revoked_reason text,
  ip            text,
  user_agent    text
);
CREATE INDEX operator_sessions_operator_idx ON operator_sessions (operator_id, created_at DESC);

-- The login limiter also counts per account ('owner' or the lower-cased email).
ALTER TABLE login_attempts ADD COLUMN account text;
CREATE INDEX login_attempts_account_idx ON login_attempts (account, attempted_at) WHERE account IS NOT NULL;

-- The audit log: append-only and hash-chained. hash = sha256(prev_hash || canonical row), where the
-- canonical row is the JSON of every other column (src/audit/audit-hash.ts). seq is gapless and
-- ordered by the chain head below, which every append locks for the rest of its transaction, so
-- concurrent appends form one line.
CREATE TABLE audit_log (
  seq          bigint PRIMARY KEY,
  id           uuid NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL,
  actor_kind   text NOT NULL CHECK (actor_kind IN ('operator', 'merchant', 'system')),
  actor_id     text,
  actor_label  text NOT NULL,
  action       text NOT NULL,
  target_type  text,
  target_id    text,
  before       jsonb,
  after        jsonb,
  reason       text,
  ip           text,
  user_agent   text,
  prev_hash    text NOT NULL,
  hash         text NOT NULL
);
CREATE INDEX audit_log_created_idx ON audit_log (created_at DESC, seq DESC);
CREATE INDEX audit_log_action_idx ON audit_log (action, seq DESC);
CREATE INDEX audit_log_actor_idx ON audit_log (actor_id, seq DESC);
CREATE INDEX audit_log_target_idx ON audit_log (target_type, target_id, seq DESC);

CREATE TABLE audit_chain_head (
  id    boolean PRIMARY KEY DEFAULT true CHECK (id),
  seq   bigint NOT NULL,
  hash  text NOT NULL
);
INSERT INTO audit_chain_head (id, seq, hash) VALUES (true, 0, repeat('0', 64));

-- Nothing updates or deletes an audit row: the database refuses it whoever asks (a superuser can
-- still disable the trigger, which is what verify-audit exists to catch).
CREATE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP;
END;
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();
