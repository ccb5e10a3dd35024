-- The sweep cost ledger and delegate mode (DESIGN.md 7b).
--
-- A settlement may sweep its address more than once (a payment after the sweep was signed starts a
-- new round); `round` numbers them. `mode` is fixed when a round starts, so a settlement in flight
-- keeps its plan when SWEEP_MODE changes. `queued_at` is when the round became due (the outcome).
ALTER TABLE settlements
  ADD COLUMN mode text CHECK (mode IN ('burn', 'delegate')),
  ADD COLUMN round integer NOT NULL DEFAULT 1,
  ADD COLUMN queued_at timestamptz;
UPDATE settlements SET queued_at = created_at;

-- Every transaction a sweep signs, stored before it is broadcast (the signed bytes are what a restart
-- re-broadcasts). The fee columns are read from the solidified transaction info, never estimated.
-- settlement_id is NULL for the reconciler's own undelegations (kind 'reclaim').
CREATE TABLE sweep_transactions (
  tx_hash          text PRIMARY KEY,
  settlement_id    uuid REFERENCES settlements (id),
  round            integer NOT NULL,
  kind             text NOT NULL
                   CHECK (kind IN ('fund', 'activate', 'delegate', 'sweep', 'undelegate', 'reclaim')),
  address          text NOT NULL,
  signed           jsonb NOT NULL,
  -- the address had no account when this was signed: its fee includes the account creation
  creates_account  boolean NOT NULL DEFAULT false,
  -- delegate, undelegate, reclaim: the staked TRX (sun) whose energy moves, and that energy
  stake_sun        numeric(38, 0),
  energy           bigint,
  state            text NOT NULL DEFAULT 'signed'
                   CHECK (state IN ('signed', 'sent', 'included', 'solid', 'failed', 'expired')),
  fee_sun          numeric(38, 0),
  energy_fee_sun   numeric(38, 0),
  net_fee_sun      numeric(38, 0),
  energy_used      bigint,
  net_usage        bigint,
  created_at       timestamptz NOT NULL,
  landed_at        timestamptz
);
CREATE INDEX sweep_transactions_settlement_idx ON sweep_transactions (settlement_id, round);
-- Stored but not yet accepted by the node: the stake such a delegation takes is invisible on chain.
CREATE INDEX sweep_transactions_unseen_idx ON sweep_transactions (kind) WHERE state = 'signed';

-- What each finished sweep really cost, summed from its transactions' infos (TRX in sun).
CREATE TABLE sweep_costs (
  settlement_id     uuid NOT NULL REFERENCES settlements (id),
  round             integer NOT NULL,
  order_id          uuid NOT NULL REFERENCES orders (id),
  mode              text NOT NULL CHECK (mode IN ('burn', 'delegate')),
  -- the deposit address had no account when the sweep began (it was activated by this sweep)
  fresh_address     boolean NOT NULL,
  amount            numeric(38, 0) NOT NULL,
  trx_burnt         numeric(38, 0) NOT NULL,
  activation_trx    numeric(38, 0) NOT NULL,
  energy_delegated  bigint NOT NULL,
  energy_used       bigint NOT NULL,
  transactions      integer NOT NULL,
  queued_at         timestamptz NOT NULL,
  swept_at          timestamptz NOT NULL,
  finished_at       timestamptz NOT NULL,
  PRIMARY KEY (settlement_id, round)
);
CREATE INDEX sweep_costs_finished_idx ON sweep_costs (finished_at);
