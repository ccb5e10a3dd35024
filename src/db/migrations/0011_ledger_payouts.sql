-- The merchant ledger, refunds and payouts (DESIGN.md 14).
--
-- Double entry: a ledger transaction holds postings that sum to zero. Each merchant has two
-- accounts of its own, `available` and `reserved`; money enters through `received` (a confirmed
-- payment, an attached stray transfer, a deposit) and leaves through `paid_out` (a completed refund
-- or payout). A posting's sign is the direction of the merchant's claim: +available is money the
-- merchant may spend, -received its counterpart. Postings are written in the same database
-- transaction as the change they record (src/ledger/post-ledger.ts).
CREATE TABLE ledger_transactions (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind        text NOT NULL,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  ref_type    text NOT NULL,
  ref_id      text NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX ledger_transactions_ref_idx ON ledger_transactions (ref_type, ref_id);

CREATE TABLE ledger_postings (
  txn_id      bigint NOT NULL REFERENCES ledger_transactions (id),
  merchant_id uuid NOT NULL,
  account     text NOT NULL CHECK (account IN ('available', 'reserved', 'received', 'paid_out')),
  amount      numeric(38, 0) NOT NULL CHECK (amount <> 0),
  PRIMARY KEY (txn_id, account)
);

-- Each merchant's balance, kept by postLedger in the same transaction as its postings (a delta
-- upsert, never read-modify-write), so a read does not sum the merchant's history. The CHECKs make
-- an overdraft impossible even when two reservations race. check-ledger compares it with the
-- postings and with the orders, refunds and payouts recounted.
CREATE TABLE merchant_balances (
  merchant_id uuid PRIMARY KEY REFERENCES merchants (id),
  available   numeric(38, 0) NOT NULL DEFAULT 0 CHECK (available >= 0),
  reserved    numeric(38, 0) NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  paid_out    numeric(38, 0) NOT NULL DEFAULT 0,
  updated_at  timestamptz NOT NULL
);

-- Refunds and payouts: one model (DESIGN.md 14).
CREATE TABLE payouts (
  id                 uuid PRIMARY KEY,
  merchant_id        uuid NOT NULL REFERENCES merchants (id),
  kind               text NOT NULL CHECK (kind IN ('refund', 'payout')),
  status             text NOT NULL CHECK (status IN ('awaiting_address', 'pending_approval', 'approved',
                       'sending', 'completed', 'failed', 'rejected', 'cancelled')),
  -- payouts: the merchant's id (unique per merchant); refunds: optional
  external_id        text,
  -- refunds: the order (or the stray transfer, DESIGN.md 13) the money goes back for
  order_id           uuid REFERENCES orders (id),
  stray_transfer_id  uuid,
  amount             numeric(38, 0) NOT NULL CHECK (amount > 0),
  -- NULL only while awaiting_address
  address            text,
  reason             text,
  callback_url       text,
  metadata           jsonb,
  -- who created it: 'merchant' (API key prefix) or 'operator' (operator id), and a label
  created_by_kind    text NOT NULL CHECK (created_by_kind IN ('merchant', 'operator', 'system')),
  created_by_id      text,
  created_by_label   text NOT NULL,
  decided_by_id      text,
  decided_by_label   text,
  decided_at         timestamptz,
  auto_approved      boolean NOT NULL DEFAULT false,
  -- refunds without an address: sha256 of the claim token (the token itself is never stored)
  claim_token_hash   text UNIQUE,
  claim_expires_at   timestamptz,
  claimed_at         timestamptz,
  -- sending
  tx_hash            text,
  trx_burnt_sun      numeric(38, 0),
  energy_used        bigint,
  attempts           integer NOT NULL DEFAULT 0,
  last_error         text,
  next_attempt_at    timestamptz,
  lease_owner        text,
  lease_expires_at   timestamptz,
  approved_at        timestamptz,
  sent_at            timestamptz,
  completed_at       timestamptz,
  failed_at          timestamptz,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  CHECK (kind = 'refund' OR external_id IS NOT NULL),
  CHECK (address IS NOT NULL OR status IN ('awaiting_address', 'cancelled', 'rejected'))
);
CREATE UNIQUE INDEX payouts_external_id_idx ON payouts (merchant_id, external_id) WHERE kind = 'payout';
CREATE INDEX payouts_merchant_created_idx ON payouts (merchant_id, created_at DESC, id DESC);
CREATE INDEX payouts_status_created_idx ON payouts (status, created_at DESC, id DESC);
CREATE INDEX payouts_order_idx ON payouts (order_id) WHERE order_id IS NOT NULL;
-- the sender's queue
CREATE INDEX payouts_due_idx ON payouts (approved_at) WHERE status IN ('approved', 'sending');

CREATE TABLE payout_events (
  id          uuid PRIMARY KEY,
  payout_id   uuid NOT NULL REFERENCES payouts (id),
  event_type  text NOT NULL,
  from_status text,
  to_status   text,
  actor       jsonb,
  payload     jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL
);
CREATE INDEX payout_events_payout_idx ON payout_events (payout_id, created_at);

-- Every transaction signed for a payout, stored before it is broadcast. At most one is live
-- (signed or sent) per payout: the unique index makes a second live signature impossible. A new
-- one may be signed only after the live one is marked expired (its expiration passed and the
-- solidified chain does not hold it).
CREATE TABLE payout_transactions (
  tx_hash        text PRIMARY KEY,
  payout_id      uuid NOT NULL REFERENCES payouts (id),
  attempt        integer NOT NULL,
  signed         jsonb NOT NULL,
  expiration_ms  bigint NOT NULL,
  mode           text NOT NULL CHECK (mode IN ('burn', 'delegate')),
  state          text NOT NULL DEFAULT 'signed'
                 CHECK (state IN ('signed', 'sent', 'solid', 'failed', 'expired')),
  result         text,
  fee_sun        numeric(38, 0),
  energy_fee_sun numeric(38, 0),
  net_fee_sun    numeric(38, 0),
  energy_used    bigint,
  net_usage      bigint,
  block_number   bigint,
  created_at     timestamptz NOT NULL,
  landed_at      timestamptz
);
CREATE UNIQUE INDEX payout_transactions_live_idx ON payout_transactions (payout_id)
  WHERE state IN ('signed', 'sent');
CREATE UNIQUE INDEX payout_transactions_attempt_idx ON payout_transactions (payout_id, attempt);

-- Refund and payout webhooks ride the same outbox as payment webhooks; they belong to a payout
-- (payout_id, payout_event_id) instead of an order and go to the callback_url the payout was
-- created with (stored on the delivery).
ALTER TABLE webhook_deliveries
  ALTER COLUMN order_id DROP NOT NULL,
  ALTER COLUMN order_event_id DROP NOT NULL,
  ADD COLUMN payout_id uuid REFERENCES payouts (id),
  ADD COLUMN payout_event_id uuid REFERENCES payout_events (id),
  ADD COLUMN callback_url text;
CREATE INDEX webhook_deliveries_payout_idx ON webhook_deliveries (payout_id, created_at)
  WHERE payout_id IS NOT NULL;

-- Backfill: every order that received money so far (amount_received moves only at confirmation)
-- becomes one ledger transaction, and each merchant's balance their sum.
CREATE TEMPORARY TABLE ledger_backfill ON COMMIT DROP AS
  SELECT id AS order_id, merchant_id, amount_received, coalesce(confirmed_at, updated_at) AS at,
         row_number() OVER (ORDER BY coalesce(confirmed_at, updated_at), id) AS n
  FROM orders WHERE amount_received > 0;
INSERT INTO ledger_transactions (kind, merchant_id, ref_type, ref_id, created_at)
  SELECT 'payment_confirmed', merchant_id, 'order', order_id::text, at FROM ledger_backfill ORDER BY n;
INSERT INTO ledger_postings (txn_id, merchant_id, account, amount)
  SELECT t.id, b.merchant_id, p.account, p.amount
  FROM ledger_backfill b
  JOIN ledger_transactions t ON t.ref_type = 'order' AND t.ref_id = b.order_id::text
  CROSS JOIN LATERAL (VALUES ('available', b.amount_received), ('received', -b.amount_received))
    AS p (account, amount);
INSERT INTO merchant_balances (merchant_id, available, reserved, paid_out, updated_at)
  SELECT merchant_id, sum(amount_received), 0, 0, now() FROM ledger_backfill GROUP BY merchant_id;
