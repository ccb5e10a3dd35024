-- Replacements of a top-up sweep that the base fee outran (docs/evm-sweeps.md "A sweep the fees
-- outran"). A deposit address holds exactly its sweep's gas at the caps it was signed with, so a
-- replacement at higher caps needs more: one row per replacement of a leg's attempt, numbered from
-- 1, holding the figures it is built from, stored before anything is sent. `topup_wei` (gas limit x
-- the new max fee, less what the address held) is sent by the hot wallet as purpose `sweep_gas`
-- under ref `<leg ref>:<bump>`; once it is included, the deposit key signs the same nonce at the new
-- caps, stored in the outbox in the database transaction that sets `replaced`. `replaces_hash` is
-- the sweep version it supersedes; a bump whose top-up lost its nonce is `abandoned`.
CREATE TABLE IF NOT EXISTS evm_sweep_bumps (
  settlement_id uuid NOT NULL,
  round integer NOT NULL,
  currency text NOT NULL,
  attempt integer NOT NULL,
  bump integer NOT NULL CHECK (bump > 0),
  replaces_hash text NOT NULL,
  max_fee_per_gas numeric(78, 0) NOT NULL,
  max_priority_fee_per_gas numeric(78, 0) NOT NULL,
  held_wei numeric(78, 0) NOT NULL,
  topup_wei numeric(78, 0) NOT NULL CHECK (topup_wei >= 0),
  state text NOT NULL CHECK (state IN ('planned', 'gas_sent', 'replaced', 'abandoned')),
  sweep_tx_hash text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (settlement_id, round, currency, attempt, bump),
  FOREIGN KEY (settlement_id, round, currency) REFERENCES evm_sweep_legs (settlement_id, round, currency)
);
