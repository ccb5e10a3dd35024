-- The EVM transaction outbox (docs/evm-transactions.md): every transaction the service sends on an
-- EVM chain takes its nonce from evm_nonce_cursors, is signed, stored here, then broadcast.
--
-- One row per signed version. A replacement (the same nonce at a higher fee) is a new row
-- (generation + 1) and the older row turns `replaced`; its bytes stay, since they could still land,
-- and whichever lands is the one. A nonce whose transaction the node lost and cannot take again is
-- filled by a 0-value self-transfer (purpose `gap_fill`) and the lost row turns `dropped`.
-- States: signed -> broadcast -> included -> final; replaced; dropped.
CREATE TABLE IF NOT EXISTS evm_nonce_cursors (
  chain text NOT NULL,
  sender text NOT NULL,
  next_nonce bigint NOT NULL CHECK (next_nonce >= 0),
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (chain, sender)
);

CREATE TABLE IF NOT EXISTS evm_transactions (
  id bigserial PRIMARY KEY,
  chain text NOT NULL,
  sender text NOT NULL,
  nonce bigint NOT NULL CHECK (nonce >= 0),
  purpose text NOT NULL,
  ref text NOT NULL,
  generation integer NOT NULL DEFAULT 0,
  to_address text NOT NULL,
  value numeric(78, 0) NOT NULL CHECK (value >= 0),
  data text NOT NULL,
  gas_limit bigint NOT NULL CHECK (gas_limit > 0),
  max_fee_per_gas numeric(78, 0) NOT NULL,
  max_priority_fee_per_gas numeric(78, 0) NOT NULL,
  raw text NOT NULL,
  tx_hash text NOT NULL UNIQUE,
  state text NOT NULL CHECK (state IN ('signed', 'broadcast', 'included', 'final', 'replaced', 'dropped')),
  block_number bigint,
  block_hash text,
  success boolean,
  gas_used numeric(78, 0),
  effective_gas_price numeric(78, 0),
  note text,
  created_at timestamptz NOT NULL,
  first_broadcast_at timestamptz,
  broadcast_at timestamptz,
  broadcast_head bigint,
  updated_at timestamptz NOT NULL
);

-- One live transaction per nonce; replaced and dropped rows keep theirs.
CREATE UNIQUE INDEX IF NOT EXISTS evm_transactions_live_nonce
  ON evm_transactions (chain, sender, nonce) WHERE state IN ('signed', 'broadcast', 'included', 'final');
-- submit() is idempotent on (chain, purpose, ref): the first signing of a purpose.
CREATE UNIQUE INDEX IF NOT EXISTS evm_transactions_purpose
  ON evm_transactions (chain, purpose, ref) WHERE generation = 0;
-- The outbox's pass reads the unsettled rows of a chain, then every version of their nonces.
CREATE INDEX IF NOT EXISTS evm_transactions_unsettled
  ON evm_transactions (chain, sender, nonce) WHERE state IN ('signed', 'broadcast', 'included');
CREATE INDEX IF NOT EXISTS evm_transactions_nonce ON evm_transactions (chain, sender, nonce);
