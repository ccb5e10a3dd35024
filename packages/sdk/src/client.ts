/**
 * The merchant API client: create, read, list and (on the devnet) simulate payments. A thin layer
 * over callApi; every request and answer type comes from the generated OpenAPI types.
 */
import { retryPolicy, type RetryOptions } from "./retry.js";
import { callApi, type FetchLike, type RetryEvent, type TransportOptions } from "./transport.js";
import type {
  CancelPaymentParams,
  CreateDepositAddressParams,
  CreatePaymentParams,
  Deposit,
  DepositAddress,
  DepositAddressPage,
  DepositAddressWithDeposits,
  DepositPage,
  ListDepositAddressesFilters,
  ListDepositsFilters,
  CreatePayoutParams,
  CreateRefundParams,
  ListPaymentsFilters,
  ListPayoutsFilters,
  Payment,
  PaymentPage,
  PaymentWithEvents,
  Payout,
  PayoutPage,
  Refund,
  SimulatePaymentParams,
  SimulatedPayment,
  SimulateDepositParams,
  SimulatedDeposit,
} from "./types.js";

export interface ClientOptions extends RetryOptions {
  /** Where Stablegate listens, e.g. "http://127.0.0.1:3000" (a path prefix is kept). */
  baseUrl: string;
  /** The merchant's API key (sg_live_… or sg_test_…). */
  apiKey: string;
  /** A fetch implementation (default: the global fetch of Node 20+). */
  fetch?: FetchLike;
  /** Per attempt, in ms (default 30,000). */
  timeoutMs?: number;
  /** Called before each wait between attempts, e.g. to log it. */
  onRetry?: (event: RetryEvent) => void;
}

export interface StablegateClient {
  /**
   * Creates an order, or answers the existing one when this external_id was already used with the
   * same amount, chain, currency and callback_url: so a retry after a lost answer returns the same
   * order. `chain` defaults to the deployment's primary chain (tron); a chain and currency the
   * deployment does not enable throw UNSUPPORTED_CURRENCY (400). Retries network errors, timeouts,
   * 429 and 503. Different values for a used external_id throw EXTERNAL_ID_CONFLICT (409).
   */
  createPayment(params: CreatePaymentParams): Promise<Payment>;
  /** One of your orders with its events. Unknown ids (or another merchant's) throw NOT_FOUND. */
  getPayment(id: string): Promise<PaymentWithEvents>;
  /**
   * Cancels a pending order (status `cancelled`, no webhook); `reason` is kept in the order's
   * events and the audit log. Any other status throws INVALID_STATE (409). A payment that still
   * reaches the address is credited as a late payment. Not retried after it was sent (only 429 and
   * 503, refused before anything happened).
   */
  cancelPayment(id: string, params: CancelPaymentParams): Promise<PaymentWithEvents>;
  /** Every order matching `filters`, newest first, fetching page after page as you iterate. */
  listPayments(filters?: ListPaymentsFilters): AsyncIterableIterator<Payment>;
  /** One page, for callers who page themselves. */
  listPaymentsPage(filters: ListPaymentsFilters & { page?: number }): Promise<PaymentPage>;
  /**
   * Devnet only (NOT_FOUND elsewhere): pays the order from the devnet faucet with a real signed
   * USDT transfer; `amount` defaults to the amount expected. Every call sends a new transfer, so
   * only 429 and 503 (refused before anything was sent) are retried.
   */
  simulatePayment(id: string, params?: SimulatePaymentParams): Promise<SimulatedPayment>;
  /**
   * A customer's permanent deposit address (static: every deposit to it is credited and reported
   * by deposit.* webhooks to `callback_url`, each with its chain and currency). `chain` (default
   * tron) picks the chain family: one EVM address serves every enabled EVM chain. Idempotent on
   * customer_ref within a family: asking again answers the existing address unchanged, so it is safe
   * to call on every page view. Retries like createPayment.
   */
  createDepositAddress(params: CreateDepositAddressParams): Promise<DepositAddress>;
  /** One of your static addresses with its newest deposits; unknown ids throw NOT_FOUND. */
  getDepositAddress(id: string): Promise<DepositAddressWithDeposits>;
  /** Every static address matching `filters` (e.g. customer_ref), newest first. */
  listDepositAddresses(filters?: ListDepositAddressesFilters): AsyncIterableIterator<DepositAddress>;
  /** Every deposit matching `filters` (deposit_address_id, customer_ref, status), newest first. */
  listDeposits(filters?: ListDepositsFilters): AsyncIterableIterator<Deposit>;
  /** Stop showing an address: deposits to it are still credited, flagged address_status "disabled". */
  disableDepositAddress(id: string): Promise<DepositAddressWithDeposits>;
  enableDepositAddress(id: string): Promise<DepositAddressWithDeposits>;
  /**
   * Devnet only (NOT_FOUND elsewhere): sends `amount` USDT from the devnet faucet to the address
   * with a real signed transfer. Only 429 and 503 are retried (each call sends a new transfer).
   */
  simulateDeposit(id: string, params: SimulateDepositParams): Promise<SimulatedDeposit>;
  /**
   * Refunds (part of) what an order received, reserving the amount from your balance. With
   * `address` the payer gets it there; without, the answer carries a `claim_url` (shown once) for
   * the payer to enter an address. It waits for an operator's approval unless it is under the
   * auto-approve limit; `refund.completed` / `refund.failed` go to `callback_url` if given. More
   * than the order received less its live refunds throws REFUND_EXCEEDS_RECEIVED (409); more than
   * your available balance INSUFFICIENT_BALANCE (409). Not idempotent: only 429 and 503 are retried.
   */
  createRefund(paymentId: string, params: CreateRefundParams): Promise<Refund>;
  /**
   * Pays `amount` USDT to `address` from the hot wallet, once approved. Idempotent on external_id:
   * the same fields answer the existing payout (so network errors, timeouts, 429 and 503 are
   * retried), other fields throw EXTERNAL_ID_CONFLICT (409). More than your available balance throws
   * INSUFFICIENT_BALANCE (409); an invalid or own address INVALID_ADDRESS or ADDRESS_NOT_ALLOWED (400).
   */
  createPayout(params: CreatePayoutParams): Promise<Payout>;
  /** One of your refunds or payouts; unknown ids (or another merchant's) throw NOT_FOUND. */
  getPayout(id: string): Promise<Payout>;
  /** Every refund and payout matching `filters` (kind, status, order_id), newest first. */
  listPayouts(filters?: ListPayoutsFilters): AsyncIterableIterator<Payout>;
}

const USER_AGENT = "stablegate-sdk/0.1";
const MAX_PAGE_SIZE = 100;

export function createClient(options: ClientOptions): StablegateClient {
  if (!/^https?:\/\//i.test(options.baseUrl)) throw new TypeError("baseUrl must be an http(s) URL");
  if (!options.apiKey) throw new TypeError("apiKey is required");
  const fetchImpl = options.fetch ?? (globalThis.fetch as FetchLike | undefined);
  if (!fetchImpl) throw new TypeError("no fetch available: pass options.fetch (Node 18+ has one)");
  const transport: TransportOptions = {
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    fetch: fetchImpl,
    timeoutMs: options.timeoutMs ?? 30_000,
    retry: retryPolicy(options),
    userAgent: USER_AGENT,
    onRetry: options.onRetry,
  };
  const paymentPath = (id: string) => `/api/v1/payments/${encodeURIComponent(id)}`;

  const listPaymentsPage = (filters: ListPaymentsFilters & { page?: number }): Promise<PaymentPage> => {
    const { pageSize, page, ...query } = filters;
    return callApi<PaymentPage>(transport, {
      method: "GET",
      path: "/api/v1/payments",
      query: {
        ...query,
        page: page === undefined ? undefined : String(page),
        limit: String(pageSize ?? MAX_PAGE_SIZE),
      },
      retryOn: "idempotent",
    });
  };

  const pageQuery = (filters: { pageSize?: number; page?: number } & Record<string, unknown>) => {
    const { pageSize, page, ...query } = filters;
    const out: Record<string, string | undefined> = {
      page: page === undefined ? undefined : String(page),
      limit: String(pageSize ?? MAX_PAGE_SIZE),
    };
    for (const [key, value] of Object.entries(query))
      out[key] = value === undefined ? undefined : String(value);
    return out;
  };
  const depositAddressPath = (id: string) => `/api/v1/deposit-addresses/${encodeURIComponent(id)}`;

  const payoutPath = (id: string) => `/api/v1/payouts/${encodeURIComponent(id)}`;

  return {
    createRefund: (paymentId, params) =>
      callApi<Refund>(transport, {
        method: "POST",
        path: `${paymentPath(paymentId)}/refunds`,
        body: params,
        retryOn: "refused-only",
      }),
    createPayout: (params) =>
      callApi<Payout>(transport, {
        method: "POST",
        path: "/api/v1/payouts",
        body: params,
        retryOn: "idempotent",
      }),
    getPayout: (id) =>
      callApi<Payout>(transport, { method: "GET", path: payoutPath(id), retryOn: "idempotent" }),
    listPayouts: (filters = {}) => iterateCursor(transport, filters),
    createDepositAddress: (params) =>
      callApi<DepositAddress>(transport, {
        method: "POST",
        path: "/api/v1/deposit-addresses",
        body: params,
        retryOn: "idempotent",
      }),
    getDepositAddress: (id) =>
      callApi<DepositAddressWithDeposits>(transport, {
        method: "GET",
        path: depositAddressPath(id),
        retryOn: "idempotent",
      }),
    listDepositAddresses: (filters = {}) =>
      iteratePages<DepositAddress>((page) =>
        callApi<DepositAddressPage>(transport, {
          method: "GET",
          path: "/api/v1/deposit-addresses",
          query: pageQuery({ ...filters, page }),
          retryOn: "idempotent",
        }),
      ),
    listDeposits: (filters = {}) =>
      iteratePages<Deposit>((page) =>
        callApi<DepositPage>(transport, {
          method: "GET",
          path: "/api/v1/deposits",
          query: pageQuery({ ...filters, page }),
          retryOn: "idempotent",
        }),
      ),
    disableDepositAddress: (id) =>
      callApi<DepositAddressWithDeposits>(transport, {
        method: "POST",
        path: `${depositAddressPath(id)}/disable`,
        retryOn: "idempotent",
      }),
    enableDepositAddress: (id) =>
      callApi<DepositAddressWithDeposits>(transport, {
        method: "POST",
        path: `${depositAddressPath(id)}/enable`,
        retryOn: "idempotent",
      }),
    simulateDeposit: (id, params) =>
      callApi<SimulatedDeposit>(transport, {
        method: "POST",
        path: `${depositAddressPath(id)}/simulate`,
        body: params,
        retryOn: "refused-only",
      }),
    createPayment: (params) =>
      callApi<Payment>(transport, {
        method: "POST",
        path: "/api/v1/payments",
        body: params,
        retryOn: "idempotent",
      }),
    getPayment: (id) =>
      callApi<PaymentWithEvents>(transport, { method: "GET", path: paymentPath(id), retryOn: "idempotent" }),
    cancelPayment: (id, params) =>
      callApi<PaymentWithEvents>(transport, {
        method: "POST",
        path: `${paymentPath(id)}/cancel`,
        body: params,
        retryOn: "refused-only",
      }),
    listPayments: (filters = {}) => iteratePayments(listPaymentsPage, filters),
    listPaymentsPage,
    simulatePayment: (id, params = {}) =>
      callApi<SimulatedPayment>(transport, {
        method: "POST",
        path: `${paymentPath(id)}/simulate`,
        body: params,
        retryOn: "refused-only",
      }),
  };
}

/**
 * Offset pages over a list that grows at the front (newest first): without an upper bound, an order
 * created while we page would push the last order of a page onto the next one (seen twice) and
 * nothing would be skipped. Pinning `to` to the newest order of the first page keeps the pages
 * still; orders seen on the previous page are dropped as well, for the rare shift that is left
 * (an order changing status under a `status` filter can still be missed: list again for those).
 */
async function* iteratePayments(
  fetchPage: (filters: ListPaymentsFilters & { page: number }) => Promise<PaymentPage>,
  filters: ListPaymentsFilters,
): AsyncIterableIterator<Payment> {
  let bounded: ListPaymentsFilters = filters;
  let previous = new Set<string>();
  for (let page = 1; ; page++) {
    const { data, pagination } = await fetchPage({ ...bounded, page });
    const first = data[0];
    if (page === 1 && bounded.to === undefined && first !== undefined) {
      // +1 ms: created_at may carry microseconds the JSON timestamp rounds away.
      bounded = { ...bounded, to: new Date(Date.parse(first.created_at) + 1).toISOString() };
    }
    const seen = new Set<string>();
    for (const payment of data) {
      seen.add(payment.id);
      if (!previous.has(payment.id)) yield payment;
    }
    previous = seen;
    if (data.length === 0 || page >= pagination.total_pages) return;
  }
}

/**
 * Pages of a newest-first list without a time bound: an item created while we page pushes others
 * one place back, so an item already yielded may show up again at the top of the next page; those
 * are dropped by id (nothing is skipped).
 */
async function* iteratePages<T extends { id: string }>(
  fetchPage: (page: number) => Promise<{ data: T[]; pagination: { total_pages: number } }>,
): AsyncIterableIterator<T> {
  const yielded = new Set<string>();
  for (let page = 1; ; page++) {
    const { data, pagination } = await fetchPage(page);
    for (const item of data) {
      if (yielded.has(item.id)) continue;
      yielded.add(item.id);
      yield item;
    }
    if (data.length === 0 || page >= pagination.total_pages) return;
  }
}

/** GET /api/v1/payouts follows next_cursor (keyset on created_at and id: stable while new ones arrive). */
async function* iterateCursor(
  transport: TransportOptions,
  filters: ListPayoutsFilters,
): AsyncIterableIterator<Payout> {
  const { pageSize, ...rest } = filters;
  const query: Record<string, string | undefined> = { limit: String(pageSize ?? MAX_PAGE_SIZE) };
  for (const [key, value] of Object.entries(rest))
    query[key] = value === undefined ? undefined : String(value);
  let cursor: string | undefined;
  for (;;) {
    const { data, next_cursor } = await callApi<PayoutPage>(transport, {
      method: "GET",
      path: "/api/v1/payouts",
      query: { ...query, cursor },
      retryOn: "idempotent",
    });
    yield* data;
    if (next_cursor === null || data.length === 0) return;
    cursor = next_cursor;
  }
}
