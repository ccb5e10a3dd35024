-- Operator alerts (DESIGN.md 2 and 11). One row per firing: a condition (hot wallet low, scanner
-- lag, nodes down, pool low) has at most one firing row at a time, enforced by the partial unique
-- index, so two workers evaluating at once fire it once; it is resolved by a compare-and-set on its
-- state. An event alert (callback_failed, sweep failed) is keyed by its order event: once per event.
CREATE TABLE alerts (
  id           uuid PRIMARY KEY,
  alert        text NOT NULL,
  -- the condition's name, or 'event:<order_events.id>'
  key          text NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('condition', 'event')),
  severity     text NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  state        text NOT NULL CHECK (state IN ('firing', 'resolved')),
  text         text NOT NULL,
  details      jsonb NOT NULL DEFAULT '{}'::jsonb,
  fired_at     timestamptz NOT NULL,
  resolved_at  timestamptz
);
CREATE UNIQUE INDEX alerts_condition_firing_idx ON alerts (key) WHERE kind = 'condition' AND state = 'firing';
CREATE UNIQUE INDEX alerts_event_idx ON alerts (key) WHERE kind = 'event';
CREATE INDEX alerts_recent_idx ON alerts (fired_at DESC);

-- The outbox: one row per alert transition (firing, resolved) and channel, written in the same
-- transaction as the transition, claimed with SKIP LOCKED and a lease like webhook deliveries.
CREATE TABLE alert_deliveries (
  id               uuid PRIMARY KEY,
  alert_id         uuid NOT NULL REFERENCES alerts (id),
  channel          text NOT NULL CHECK (channel IN ('webhook', 'telegram')),
  state            text NOT NULL CHECK (state IN ('firing', 'resolved')),
  -- the JSON body of the alert webhook, built once; Telegram's message is made from it
  body             text NOT NULL,
  status           text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL,
  locked_until     timestamptz,
  last_error       text,
  created_at       timestamptz NOT NULL,
  delivered_at     timestamptz
);
CREATE INDEX alert_deliveries_due_idx ON alert_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX alert_deliveries_alert_idx ON alert_deliveries (alert_id);
