-- Stablegate schema. Money is NUMERIC(38,0) of micro-units (USDT) or sun (TRX): never floating point.
-- Timestamps are timestamptz written by the application clock.

CREATE TABLE merchants (
  id              uuid PRIMARY KEY,
  name            text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  api_key_hash    text NOT NULL UNIQUE,
  api_key_prefix  text NOT NULL,
  webhook_secret  text NOT NULL CHECK (char_length(webhook_secret) BETWEEN 8 AND 255),
  is_active       boolean NOT NULL DEFAULT true,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);

-- The HD pool of deposit addresses. An address stays bound to its last order (order_id) through
-- quarantine, so a transfer to it is always attributable.
CREATE TABLE addresses (
  id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  derivation_index   integer NOT NULL UNIQUE CHECK (derivation_index >= 0),
  address            text NOT NULL UNIQUE,
  status             text NOT NULL DEFAULT 'free' CHECK (status IN ('free', 'allocated')),
  order_id           uuid,
  allocated_at       timestamptz,
  released_at        timestamptz,
  quarantine_until   timestamptz,
  created_at         timestamptz NOT NULL
);
CREATE INDEX addresses_free_idx ON addresses (derivation_index) WHERE status = 'free';

CREATE TABLE orders (
  id                uuid PRIMARY KEY,
  merchant_id       uuid NOT NULL REFERENCES merchants (id),
  external_id       text NOT NULL CHECK (char_length(external_id) BETWEEN 1 AND 128),
  amount_expected   numeric(38, 0) NOT NULL CHECK (amount_expected > 0),
  amount_received   numeric(38, 0) NOT NULL DEFAULT 0,
  currency          text NOT NULL DEFAULT 'USDT',
  network           text NOT NULL,
  status            text NOT NULL CHECK (status IN ('pending', 'detected', 'confirmed', 'underpaid',
                      'overpaid', 'completed', 'expired', 'callback_failed')),
  address           text NOT NULL,
  address_id        bigint REFERENCES addresses (id),
  tx_hash           text,
  from_address      text,
  callback_url      text NOT NULL,
  metadata          jsonb,
  expires_at        timestamptz NOT NULL,
  detected_at       timestamptz,
  confirmed_at      timestamptz,
  completed_at      timestamptz,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  UNIQUE (merchant_id, external_id)
);
ALTER TABLE addresses ADD CONSTRAINT addresses_order_fk FOREIGN KEY (order_id) REFERENCES orders (id);
CREATE INDEX orders_created_idx ON orders (created_at DESC, id DESC);
CREATE INDEX orders_merchant_created_idx ON orders (merchant_id, created_at DESC, id DESC);
CREATE INDEX orders_status_created_idx ON orders (status, created_at DESC);
CREATE INDEX orders_pending_expiry_idx ON orders (expires_at) WHERE status = 'pending';
CREATE INDEX orders_address_idx ON orders (address, created_at DESC);

CREATE TABLE order_events (
  id           uuid PRIMARY KEY,
  order_id     uuid NOT NULL REFERENCES orders (id),
  event_type   text NOT NULL,
  payload      jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at   timestamptz NOT NULL
);
CREATE INDEX order_events_order_idx ON order_events (order_id, created_at, id);
CREATE INDEX order_events_incident_idx ON order_events (created_at DESC)
  WHERE event_type IN ('webhook_failed', 'sweep_failed');

-- One row per USDT Transfer log credited to an order. (tx_hash, log_index) is the chain's identity.
CREATE TABLE transfers (
  id               uuid PRIMARY KEY,
  order_id         uuid NOT NULL REFERENCES orders (id),
  tx_hash          text NOT NULL,
  log_index        integer NOT NULL,
  block_number     bigint NOT NULL,
  block_hash       text NOT NULL,
  block_timestamp  timestamptz NOT NULL,
  from_address     text NOT NULL,
  to_address       text NOT NULL,
  amount           numeric(38, 0) NOT NULL CHECK (amount > 0),
  status           text NOT NULL DEFAULT 'seen' CHECK (status IN ('seen', 'confirmed')),
  confirmed_at     timestamptz,
  created_at       timestamptz NOT NULL,
  UNIQUE (tx_hash, log_index)
);
CREATE INDEX transfers_order_idx ON transfers (order_id, block_number);
CREATE INDEX transfers_unconfirmed_idx ON transfers (block_number) WHERE status = 'seen';

-- The outbox of outcome webhooks: written in the same transaction as the outcome.
CREATE TABLE webhook_deliveries (
  id                 uuid PRIMARY KEY,
  order_id           uuid NOT NULL REFERENCES orders (id),
  merchant_id        uuid NOT NULL REFERENCES merchants (id),
  order_event_id     uuid NOT NULL REFERENCES order_events (id),
  event              text NOT NULL,
  idempotency_key    text NOT NULL,
  payload            text NOT NULL,
  status             text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed', 'superseded')),
  attempts           integer NOT NULL DEFAULT 0,
  max_attempts       integer NOT NULL DEFAULT 10,
  next_attempt_at    timestamptz NOT NULL,
  lease_expires_at   timestamptz,
  lease_owner        text,
  callback_url_override text,
  last_error         text,
  last_status_code   integer,
  delivered_at       timestamptz,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (order_id, created_at);

CREATE TABLE webhook_attempts (
  id             uuid PRIMARY KEY,
  delivery_id    uuid NOT NULL REFERENCES webhook_deliveries (id),
  attempt        integer NOT NULL,
  url            text NOT NULL,
  started_at     timestamptz NOT NULL,
  duration_ms    integer NOT NULL,
  status_code    integer,
  error          text,
  success        boolean NOT NULL
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempt);

-- Sweeps of received funds to the cold wallet. Signed transactions are stored before broadcast so a
-- restart re-broadcasts the same bytes instead of paying twice.
CREATE TABLE settlements (
  id                   uuid PRIMARY KEY,
  order_id             uuid NOT NULL UNIQUE REFERENCES orders (id),
  address              text NOT NULL,
  status               text NOT NULL CHECK (status IN ('waiting', 'active', 'completed', 'failed')),
  step                 text,
  amount               numeric(38, 0),
  fee_trx              numeric(38, 0),
  fee_tx_hash          text,
  fee_tx_signed        jsonb,
  sweep_tx_hash        text,
  sweep_tx_signed      jsonb,
  cold_wallet_address  text,
  attempts             integer NOT NULL DEFAULT 0,
  last_error           text,
  next_attempt_at      timestamptz,
  lease_expires_at     timestamptz,
  lease_owner          text,
  swept_at             timestamptz,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL
);
CREATE INDEX settlements_due_idx ON settlements (next_attempt_at) WHERE status IN ('waiting', 'active');

CREATE TABLE login_attempts (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  client_ip     text NOT NULL,
  success       boolean NOT NULL,
  attempted_at  timestamptz NOT NULL
);
CREATE INDEX login_attempts_ip_idx ON login_attempts (client_ip, attempted_at);

-- The scanner's position, advanced in the same transaction as the transfers it found.
CREATE TABLE scanner_cursor (
  name          text PRIMARY KEY,
  block_number  bigint NOT NULL,
  block_hash    text NOT NULL,
  updated_at    timestamptz NOT NULL
);

-- Hashes of recently scanned blocks: the fork point is found by walking back through them.
CREATE TABLE scanned_blocks (
  block_number  bigint PRIMARY KEY,
  block_hash    text NOT NULL,
  parent_hash   text NOT NULL,
  scanned_at    timestamptz NOT NULL
);

CREATE TABLE app_state (
  key         text PRIMARY KEY,
  value       jsonb NOT NULL,
  updated_at  timestamptz NOT NULL
);
