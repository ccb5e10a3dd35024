/**
 * The Prometheus metrics of one process (DESIGN.md 11), created per context and passed in like the
 * clock or the logger: createMetrics() -> ctx.metrics. Every family is named stablegate_* with its
 * unit in the name. Event counters and histograms are incremented by the code that does the work
 * (so each process reports what it did); the values that come from the database are read from the
 * shared snapshot (metrics-snapshot.ts), never queried on a scrape.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { withoutCredentials } from "../config.js";
import { EMPTY_SNAPSHOT, type MetricsSnapshot } from "./metrics-snapshot.js";

export type NodeCallResult = "ok" | "error";

/** What the node gauges read of a chain (chain.ts: id and nodes()). */
export interface NodeSource {
  readonly id: string;
  nodes(): readonly { name: string; state: string; active: boolean; head: number | null }[];
}

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequestDuration: Histogram<"method" | "route" | "status">;
  readonly ordersCreated: Counter;
  readonly orderOutcomes: Counter<"status">;
  readonly scannerHeadBlock: Gauge<"chain">;
  readonly scannerScannedBlock: Gauge<"chain">;
  readonly scannerLagBlocks: Gauge<"chain">;
  /** 1 while this process reaches the database (its last snapshot read or health probe), else 0. */
  readonly databaseUp: Gauge;
  readonly nodeCalls: Counter<"node" | "endpoint" | "result" | "chain">;
  readonly nodeCallDuration: Histogram<"node" | "endpoint" | "chain">;
  readonly webhookDeliveries: Counter<"result">;
  readonly sweeps: Counter<"result">;
  readonly sweepSpentTrx: Counter;
  readonly sweepDelegatedEnergy: Counter;
  /** The database-derived values every gauge of the snapshot reads (replaced as a whole). */
  snapshot: MetricsSnapshot;
  /** Records one node call of `chain`; `baseUrl` is reduced to a label without credentials or query. */
  observeNodeCall(chain: string, baseUrl: string, path: string, durationMs: number, failed: boolean): void;
  /** The chains whose nodes the node gauges show (the context's, once they exist). */
  watchChains(chains: readonly NodeSource[]): void;
}

export interface MetricsOptions {
  /** Include the default process_* and nodejs_* metrics (default true). */
  processMetrics?: boolean;
  /** The process role, exported as stablegate_info{role}. */
  role?: string;
  /** Epoch ms now, for the age of the snapshot (the context's clock). */
  now?: () => number;
}

// Order creation answers in a few ms; webhooks and node calls may take seconds.
const HTTP_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const NODE_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const now = options.now ?? Date.now;
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  new Gauge({
    name: "stablegate_info",
    help: "Always 1; the label names the process role (all, api or worker)",
    labelNames: ["role"],
    registers,
  }).set({ role: options.role ?? "all" }, 1);

  const metrics: Metrics = {
    registry,
    httpRequestDuration: new Histogram({
      name: "stablegate_http_request_duration_seconds",
      help: "HTTP request duration by method, route pattern and status code",
      labelNames: ["method", "route", "status"],
      buckets: HTTP_BUCKETS,
      registers,
    }),
    ordersCreated: new Counter({
      name: "stablegate_orders_created_total",
      help: "Orders created by this process (replays of an external_id not counted)",
      registers,
    }),
    orderOutcomes: new Counter({
      name: "stablegate_order_outcomes_total",
      help: "Orders that reached an outcome (confirmed, underpaid, overpaid, expired, completed, callback_failed)",
      labelNames: ["status"],
      registers,
    }),
    scannerHeadBlock: new Gauge({
      name: "stablegate_scanner_head_block",
      help: "Latest block number seen on the node by the chain's scanner leader",
      labelNames: ["chain"],
      registers,
    }),
    scannerScannedBlock: new Gauge({
      name: "stablegate_scanner_scanned_block",
      help: "Highest block number the chain's scanner has applied",
      labelNames: ["chain"],
      registers,
    }),
    scannerLagBlocks: new Gauge({
      name: "stablegate_scanner_lag_blocks",
      help: "Blocks between the chain's head and its scanned block",
      labelNames: ["chain"],
      registers,
    }),
    databaseUp: new Gauge({
      name: "stablegate_database_up",
      help: "1 while this process reaches the database (last snapshot read or health probe succeeded), 0 during an outage",
      registers,
    }),
    nodeCalls: new Counter({
      name: "stablegate_node_calls_total",
      help: "Node calls (TRON HTTP, EVM JSON-RPC) by node base URL, endpoint or method, result (ok or error) and chain",
      labelNames: ["node", "endpoint", "result", "chain"],
      registers,
    }),
    nodeCallDuration: new Histogram({
      name: "stablegate_node_call_duration_seconds",
      help: "Node call duration by node base URL, endpoint or method, and chain",
      labelNames: ["node", "endpoint", "chain"],
      buckets: NODE_BUCKETS,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: "stablegate_webhook_deliveries_total",
      help: "Webhook delivery attempts by result (delivered, retry_scheduled, failed, lease_lost)",
      labelNames: ["result"],
      registers,
    }),
    sweeps: new Counter({
      name: "stablegate_sweeps_total",
      help: "Sweep settlements by result (completed, retry, failed)",
      labelNames: ["result"],
      registers,
    }),
    sweepSpentTrx: new Counter({
      name: "stablegate_sweep_spent_trx_total",
      help: "TRX burnt by finished sweeps, from their transaction infos' fees (every transaction, the hot wallet's included)",
      registers,
    }),
    sweepDelegatedEnergy: new Counter({
      name: "stablegate_sweep_delegated_energy_total",
      help: "Energy delegated from the hot wallet's stake to deposit addresses by finished sweeps",
      registers,
    }),
    snapshot: EMPTY_SNAPSHOT,
    observeNodeCall(chain, baseUrl, path, durationMs, failed) {
      const node = nodeLabel(baseUrl);
      const endpoint = endpointLabel(path);
      metrics.nodeCalls.inc({ node, endpoint, result: failed ? "error" : "ok", chain });
      metrics.nodeCallDuration.observe({ node, endpoint, chain }, durationMs / 1000);
    },
    watchChains(chains) {
      watched = chains;
    },
  };
  let watched: readonly NodeSource[] = [];
  registerNodeGauges(registers, () => watched);
  // A process runs only once its start-up reached the database.
  metrics.databaseUp.set(1);
  registerSnapshotGauges(metrics, registers, now);
  return metrics;
}

/** The gauges whose values come from the database snapshot: set from memory at collect time. */
function registerSnapshotGauges(metrics: Metrics, registers: Registry[], now: () => number): void {
  const plain: [string, string, (s: MetricsSnapshot) => number | undefined][] = [
    [
      "stablegate_webhook_due_deliveries",
      "Webhook deliveries due now and not yet delivered (backlog)",
      (s) => s.webhookDueDeliveries,
    ],
    [
      "stablegate_webhook_oldest_due_age_seconds",
      "Age of the oldest due webhook delivery (0 when none is due)",
      (s) => s.webhookOldestDueAgeSeconds,
    ],
    [
      "stablegate_address_pool_free_addresses",
      "Deposit addresses free in the pools, every chain family's together",
      (s) => s.addressPoolFree,
    ],
    [
      "stablegate_hot_wallet_balance_trx",
      "TRX balance of the hot wallet (absent when unknown)",
      (s) => s.hotWalletBalanceTrx,
    ],
    [
      "stablegate_hot_wallet_staked_energy",
      "Energy the hot wallet's stake provides (EnergyLimit; absent when unknown)",
      (s) => s.hotWalletStakedEnergy,
    ],
    [
      "stablegate_hot_wallet_available_energy",
      "Staked energy not yet used or delegated (absent when unknown)",
      (s) => s.hotWalletAvailableEnergy,
    ],
    [
      "stablegate_payout_oldest_approved_age_seconds",
      "Age of the oldest approved refund or payout not yet sent (0 when none waits)",
      (s) => s.payoutOldestApprovedAgeSeconds,
    ],
    [
      "stablegate_payout_float_usdt",
      "USDT the hot wallet holds for refunds and payouts (absent when unknown)",
      (s) => s.payoutFloatUsdt,
    ],
    [
      "stablegate_metrics_snapshot_age_seconds",
      "Age of the database-derived values of this scrape (refreshed by one worker on a timer)",
      (s) => (s.refreshedAt === undefined ? undefined : Math.max(0, (now() - s.refreshedAt) / 1000)),
    ],
  ];
  for (const [name, help, read] of plain) {
    const gauge = new Gauge({ name, help, registers });
    const get = gauge.get.bind(gauge);
    // An unknown value is no sample at all (a balance of 0 would page someone), which a label-less
    // prom-client gauge cannot express by itself.
    gauge.get = async () => {
      const value = read(metrics.snapshot);
      gauge.set(value ?? 0);
      const result = await get();
      return value === undefined ? { ...result, values: [] } : result;
    };
  }
  new Gauge({
    name: "stablegate_settlements",
    help: "Sweep settlements by status (waiting, active, failed)",
    labelNames: ["status"],
    registers,
    collect() {
      this.reset();
      for (const [status, value] of Object.entries(metrics.snapshot.settlements ?? {})) {
        this.set({ status }, value);
      }
    },
  });
  new Gauge({
    name: "stablegate_address_pool_family_free_addresses",
    help: "Deposit addresses free in each chain family's pool (tron, evm)",
    labelNames: ["family"],
    registers,
    collect() {
      this.reset();
      for (const [family, value] of Object.entries(metrics.snapshot.addressPoolFreeByFamily ?? {})) {
        this.set({ family }, value);
      }
    },
  });
  new Gauge({
    name: "stablegate_payouts",
    help: "Refunds and payouts by status",
    labelNames: ["status"],
    registers,
    collect() {
      this.reset();
      for (const [status, value] of Object.entries(metrics.snapshot.payouts ?? {})) {
        this.set({ status }, value);
      }
    },
  });
  new Gauge({
    name: "stablegate_alerts_firing",
    help: "Operator alerts currently firing, by alert name",
    labelNames: ["alert"],
    registers,
    collect() {
      this.reset();
      for (const [alert, value] of Object.entries(metrics.snapshot.alertsFiring ?? {})) {
        this.set({ alert }, value);
      }
    },
  });
}

/** Per-node state of each watched chain's pool, read from memory at scrape time. */
function registerNodeGauges(registers: Registry[], chains: () => readonly NodeSource[]): void {
  const each = (
    gauge: Gauge<string>,
    set: (n: ReturnType<NodeSource["nodes"]>[number], chain: string) => void,
  ) => {
    gauge.reset();
    for (const chain of chains()) for (const n of chain.nodes()) set(n, chain.id);
  };
  new Gauge({
    name: "stablegate_node_head_block",
    help: "Head block each node reported last (absent until it answered), by chain",
    labelNames: ["node", "chain"],
    registers,
    collect() {
      each(this, (n, chain) => n.head !== null && this.set({ node: n.name, chain }, n.head));
    },
  });
  new Gauge({
    name: "stablegate_node_healthy",
    help: "1 while a node is in use or ready for use, 0 while it is set aside (failing or lagging), by chain",
    labelNames: ["node", "state", "chain"],
    registers,
    collect() {
      each(this, (n, chain) =>
        this.set({ node: n.name, state: n.state, chain }, n.state === "healthy" ? 1 : 0),
      );
    },
  });
  new Gauge({
    name: "stablegate_node_active",
    help: "1 for the node of each chain that calls go to now",
    labelNames: ["node", "chain"],
    registers,
    collect() {
      each(this, (n, chain) => this.set({ node: n.name, chain }, n.active ? 1 : 0));
    },
  });
}

/** A node's label: its base URL without user info, query or fragment (where API keys travel). */
export function nodeLabel(baseUrl: string): string {
  if (baseUrl === "") return "none";
  try {
    return withoutCredentials(baseUrl) ?? "none";
  } catch {
    return "invalid";
  }
}

/** "/wallet/getnowblock" stays; anything with a query or unexpected characters is cut to its path. */
function endpointLabel(path: string): string {
  const bare = path.split("?")[0] ?? "";
  return /^[/A-Za-z0-9_-]{1,64}$/.test(bare) ? bare : "other";
}
