/**
 * The fill of bench/admin-scale.ts: N orders over `days` days for the given merchants, plus
 * `recent` orders within the last `recentMinutes` minutes (the peak-load shape: 1 M in the last 30
 * minutes on top of 10 M over a year), written with generated SQL (INSERT ... SELECT FROM generate_series, 1,000,000 rows per statement, each chunk
 * sorted by id so the random-uuid primary key is written in order), before migration 0004, whose
 * backfill the bench then times. The list indexes are dropped for the fill and built afterwards.
 *
 * Status mix by age: orders of the last hour are mostly pending or detected; older ones are
 * completed 85 %, expired 10 %, callback_failed 2 % (each with a webhook_failed incident),
 * underpaid, overpaid and confirmed 1 % each. Paid orders of the last 2 days get their transfer (the
 * merchant API list reads the first transfer for confirmations); older transfers and the other
 * events are not written: no timed read touches them.
 */
import type pg from "pg";

export const FILL_DAYS = 365;
const CHUNK = 1_000_000;

const SECONDARY_INDEXES = [
  "CREATE INDEX orders_created_idx ON orders (created_at DESC, id DESC)",
  "CREATE INDEX orders_merchant_created_idx ON orders (merchant_id, created_at DESC, id DESC)",
  "CREATE INDEX orders_status_created_idx ON orders (status, created_at DESC)",
  "CREATE INDEX orders_pending_expiry_idx ON orders (expires_at) WHERE status = 'pending'",
  "CREATE INDEX orders_address_idx ON orders (address, created_at DESC)",
];

export interface FillTimings {
  ordersMs: number;
  indexesMs: number;
  extrasMs: number;
}

/**
 * `pr` is a pseudo-random 0..999 per order; `hour_old` whether it is older than an hour. One CASE
 * gives the status, the others follow from it.
 */
function orderSelect(
  first: number,
  last: number,
  total: number,
  nowIso: string,
  spanSeconds: number,
  prefix: string,
): string {
  return `
    WITH g AS (
      SELECT i, ((i * 2654435761) % 1000)::int AS pr,
             $2::timestamptz - make_interval(secs => (${total} - i)::float8 * ${spanSeconds / total}) AS at
      FROM generate_series(${first}::bigint, ${last}::bigint) AS i
    ), s AS (
      SELECT i, pr, at, CASE
          WHEN at > '${nowIso}'::timestamptz - interval '1 hour' THEN
            CASE WHEN pr < 700 THEN 'pending' WHEN pr < 800 THEN 'detected' ELSE 'completed' END
          WHEN pr < 850 THEN 'completed' WHEN pr < 950 THEN 'expired' WHEN pr < 970 THEN 'callback_failed'
          WHEN pr < 980 THEN 'underpaid' WHEN pr < 990 THEN 'overpaid' ELSE 'confirmed' END AS status,
        (1000000 + (i * 7919) % 500000000)::numeric AS amount
      FROM g
    )
    SELECT gen_random_uuid() AS id, ($1::uuid[])[1 + (i % array_length($1::uuid[], 1))] AS merchant_id,
      '${prefix}' || i, amount,
      CASE status WHEN 'underpaid' THEN amount / 2 WHEN 'overpaid' THEN amount + 1000000
        WHEN 'completed' THEN amount WHEN 'callback_failed' THEN amount WHEN 'confirmed' THEN amount
        ELSE 0 END,
      'nile', status, 'TBench${prefix}' || lpad(i::text, 24, '0'),
      CASE WHEN status IN ('pending', 'expired') THEN NULL ELSE md5(i::text) || md5((-i)::text) END,
      CASE WHEN status IN ('pending', 'expired') THEN NULL ELSE 'TFrom' || lpad((i % 9973)::text, 29, '0') END,
      'https://shop.example.com/cb', at + interval '30 minutes',
      CASE WHEN status IN ('pending', 'expired') THEN NULL ELSE at + interval '20 seconds' END,
      CASE WHEN status IN ('pending', 'expired', 'detected') THEN NULL ELSE at + interval '80 seconds' END,
      CASE WHEN status = 'completed' THEN at + interval '81 seconds' END,
      at, at + interval '81 seconds'
    FROM s`;
}

export interface FillShape {
  /** Orders spread evenly over the last `days` days. */
  total: number;
  days: number;
  /** More orders spread over the last `recentMinutes` minutes. */
  recent: number;
  recentMinutes: number;
}

export async function fillOrders(
  client: pg.Client,
  merchantIds: string[],
  shape: FillShape,
  now: Date,
  progress: (line: string) => void,
): Promise<FillTimings> {
  await client.query("SET work_mem = '512MB'");
  await client.query("SET maintenance_work_mem = '1GB'");
  await client.query("SET synchronous_commit = off");
  for (const sql of SECONDARY_INDEXES) {
    await client.query(`DROP INDEX IF EXISTS ${(/INDEX (\w+)/.exec(sql) as RegExpExecArray)[1]}`);
  }
  let started = performance.now();
  const parts = [
    { total: shape.total, span: shape.days * 86_400, prefix: "ext-", label: `over ${shape.days} days` },
    {
      total: shape.recent,
      span: shape.recentMinutes * 60,
      prefix: "recent-",
      label: `in the last ${shape.recentMinutes} minutes`,
    },
  ];
  for (const part of parts) {
    for (let first = 1; first <= part.total; first += CHUNK) {
      const last = Math.min(part.total, first + CHUNK - 1);
      await client.query(
        `INSERT INTO orders (id, merchant_id, external_id, amount_expected, amount_received, network, status,
           address, tx_hash, from_address, callback_url, expires_at, detected_at, confirmed_at, completed_at,
           created_at, updated_at)
         SELECT * FROM (${orderSelect(first, last, part.total, now.toISOString(), part.span, part.prefix)}) AS o
         ORDER BY id`,
        [merchantIds, now.toISOString()],
      );
      progress(`  orders ${part.label}: ${last.toLocaleString("en")} / ${part.total.toLocaleString("en")}`);
    }
  }
  const ordersMs = performance.now() - started;
  started = performance.now();
  for (const sql of SECONDARY_INDEXES) await client.query(sql);
  const indexesMs = performance.now() - started;
  started = performance.now();
  await client.query(
    `INSERT INTO order_events (id, order_id, event_type, payload, created_at)
     SELECT gen_random_uuid(), id, 'webhook_failed',
       jsonb_build_object('reason', 'HTTP 500', 'attempt', 10, 'event', 'payment.confirmed'),
       updated_at + interval '1 hour'
     FROM orders WHERE status = 'callback_failed'`,
  );
  await client.query(
    `INSERT INTO transfers (id, order_id, tx_hash, log_index, block_number, block_hash, block_timestamp,
       from_address, to_address, amount, status, confirmed_at, created_at)
     SELECT gen_random_uuid(), id, tx_hash, 0,
       60000000 + (extract(epoch FROM created_at - $1::timestamptz) / 3)::bigint,
       md5(id::text) || md5(tx_hash), detected_at, from_address, address,
       greatest(amount_received, 1), CASE WHEN status = 'detected' THEN 'seen' ELSE 'confirmed' END,
       confirmed_at, detected_at
     FROM orders
     WHERE created_at > $2::timestamptz - interval '2 days' AND tx_hash IS NOT NULL`,
    [new Date(now.getTime() - shape.days * 86_400_000).toISOString(), now.toISOString()],
  );
  await client.query(
    `INSERT INTO scanner_cursor (name, block_number, block_hash, updated_at)
     VALUES ('usdt', 60000000 + ${shape.days * 28800}, 'bench', now())
     ON CONFLICT (name) DO NOTHING`,
  );
  const extrasMs = performance.now() - started;
  return { ordersMs, indexesMs, extrasMs };
}
