-- Sweeps on EVM chains (DESIGN.md 16 "Money out", docs/evm-sweeps.md).
--
-- A settlement names the chain its address is swept on. Rows written before chains existed are
-- TRON's (the constant default is stored in the catalogue: no table rewrite); an order's settlement
-- takes its order's chain. One address-level settlement per address AND chain: an EVM deposit
-- address is the same 0x address on every EVM chain, and each chain's balance is its own sweep.
ALTER TABLE settlements ADD COLUMN IF NOT EXISTS chain text NOT NULL DEFAULT 'tron';
UPDATE settlements s SET chain = o.chain FROM orders o WHERE o.id = s.order_id AND o.chain <> 'tron';
DROP INDEX IF EXISTS settlements_address_level_idx;
CREATE UNIQUE INDEX IF NOT EXISTS settlements_address_level_idx
  ON settlements (address_id, chain) WHERE order_id IS NULL;
CREATE INDEX IF NOT EXISTS settlements_chain_due_idx
  ON settlements (chain, next_attempt_at) WHERE status IN ('waiting', 'active');
-- EVM_SWEEP_MODE's modes join TRON's SWEEP_MODE ones: a round keeps the mode it started with.
ALTER TABLE settlements DROP CONSTRAINT IF EXISTS settlements_mode_check;
ALTER TABLE settlements ADD CONSTRAINT settlements_mode_check
  CHECK (mode IN ('burn', 'delegate', 'topup', '7702'));

-- One row per token a round of an EVM settlement moves (an address may hold USDT and USDC on one
-- chain). The figures the sweep is built from are stored before its first transaction is submitted,
-- so a restart re-submits the same (purpose, ref) with the same fields and the outbox answers the
-- stored transaction. `attempt` numbers the top-ups whose nonce was lost (the outbox's `dropped`).
-- The costs come from the outbox's receipts (gas_used x effective_gas_price), never an estimate.
CREATE TABLE IF NOT EXISTS evm_sweep_legs (
  settlement_id uuid NOT NULL REFERENCES settlements (id),
  round integer NOT NULL,
  currency text NOT NULL,
  chain text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('topup', '7702')),
  address text NOT NULL,
  token text NOT NULL,
  units numeric(78, 0) NOT NULL CHECK (units > 0),
  decimals integer NOT NULL,
  state text NOT NULL CHECK (state IN ('planned', 'gas_sent', 'sweep_sent', 'swept')),
  attempt integer NOT NULL DEFAULT 0,
  gas_estimate bigint,
  gas_limit bigint,
  max_fee_per_gas numeric(78, 0),
  max_priority_fee_per_gas numeric(78, 0),
  held_wei numeric(78, 0),
  topup_wei numeric(78, 0),
  -- what the chain charged (wei): the top-up's and the sweep's gas, from their receipts
  gas_cost_wei numeric(78, 0),
  sweep_gas_cost_wei numeric(78, 0),
  -- the native balance left on the address once the sweep was final
  dust_wei numeric(78, 0),
  sweep_tx_hash text,
  -- set while the hot wallet's native balance cannot pay this sweep's gas (hot_wallet_low:<chain>)
  hot_wallet_short_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  swept_at timestamptz,
  PRIMARY KEY (settlement_id, round, currency)
);
CREATE INDEX IF NOT EXISTS evm_sweep_legs_chain_idx ON evm_sweep_legs (chain, swept_at);

-- A type-4 transaction's EIP-7702 authorizations (EVM_SWEEP_MODE=7702), kept with its version so a
-- replacement at the same nonce carries the same ones.
ALTER TABLE evm_transactions ADD COLUMN IF NOT EXISTS authorization_list jsonb;
