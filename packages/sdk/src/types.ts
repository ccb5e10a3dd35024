/**
 * The SDK's names for the API's shapes, every one picked out of the types openapi-typescript
 * generates from the OpenAPI document (packages/sdk/src/api-types.ts). Nothing here is written by hand, so a
 * schema change reaches merchants' compilers through `npm run generate:openapi`.
 */
import type { components, operations } from "./api-types.js";

type Json<T> = T extends { content: { "application/json": infer Body } } ? Body : never;

/** POST /api/v1/payments body: amount is a decimal string ("10.5"), never a number. */
export type CreatePaymentParams = Json<operations["postPayments"]["requestBody"]>;

/** An order as the merchant API answers it; amounts are strings with exactly 6 decimals. */
export type Payment = Json<operations["postPayments"]["responses"][201]>;

/** GET /api/v1/payments/:id: the order and its events, oldest first. */
export type PaymentWithEvents = Json<operations["getPaymentsId"]["responses"][200]>;

export type PaymentStatus = Payment["status"];
/** The chain an order is paid on: tron, ethereum, bsc, polygon, arbitrum or base. */
export type Chain = Payment["chain"];
/** USDT or USDC; amounts stay 6-decimal strings on every chain. */
export type Currency = Payment["currency"];
/** GET /api/v1/checkout/:id/status: what the hosted checkout page shows the payer. */
export type CheckoutStatus = Json<operations["getCheckoutIdStatus"]["responses"][200]>;
/** POST /api/v1/payments/:id/cancel: why (required). */
export type CancelPaymentParams = Json<operations["postPaymentsIdCancel"]["requestBody"]>;

type ListQuery = NonNullable<operations["getPayments"]["parameters"]["query"]>;

/** Filters of GET /api/v1/payments; the iterator does the paging itself. */
export type ListPaymentsFilters = Omit<ListQuery, "page" | "limit"> & {
  /** Orders per request, 1 to 100 (default 100). */
  pageSize?: number;
};

export type PaymentPage = Json<operations["getPayments"]["responses"][200]>;

/** POST /api/v1/payments/:id/simulate body (devnet only). */
export type SimulatePaymentParams = NonNullable<Json<operations["postPaymentsIdSimulate"]["requestBody"]>>;

/** The devnet transfer that paid the order. */
export type SimulatedPayment = Json<operations["postPaymentsIdSimulate"]["responses"][202]>;

/** Every code an error reply of the API can carry. */
export type ApiErrorCode = components["schemas"]["Error"]["code"];

type WebhookBody<Op extends keyof operations> = Json<operations[Op]["requestBody"]>;

export type PaymentConfirmedEvent = WebhookBody<"webhook_payment_confirmed">;
export type PaymentUnderpaidEvent = WebhookBody<"webhook_payment_underpaid">;
export type PaymentOverpaidEvent = WebhookBody<"webhook_payment_overpaid">;

/** deposit.detected: seen in a block, not final (static addresses created with notify_detected). */
export type DepositDetectedEvent = WebhookBody<"webhook_deposit_detected">;
/** deposit.confirmed: final; credit the customer (below_minimum and address_status are flags). */
export type DepositConfirmedEvent = WebhookBody<"webhook_deposit_confirmed">;

/** refund.completed: the refund's transfer is solidified; the payer has the money. */
export type RefundCompletedEvent = WebhookBody<"webhook_refund_completed">;
/** refund.failed: the transfer failed on chain; the reservation is back in your balance. */
export type RefundFailedEvent = WebhookBody<"webhook_refund_failed">;
/** payout.completed: the payout's transfer is solidified; the recipient has the money. */
export type PayoutCompletedEvent = WebhookBody<"webhook_payout_completed">;
/** payout.failed: the transfer failed on chain; the reservation is back in your balance. */
export type PayoutFailedEvent = WebhookBody<"webhook_payout_failed">;

export type PaymentWebhookEvent = PaymentConfirmedEvent | PaymentUnderpaidEvent | PaymentOverpaidEvent;
export type DepositWebhookEvent = DepositDetectedEvent | DepositConfirmedEvent;
/** The events of refunds and payouts, sent only to the callback_url given at their creation. */
export type PayoutWebhookEvent =
  RefundCompletedEvent | RefundFailedEvent | PayoutCompletedEvent | PayoutFailedEvent;

/** A verified webhook payload; switch on `event` to narrow it. */
export type WebhookEvent = PaymentWebhookEvent | DepositWebhookEvent | PayoutWebhookEvent;
export type WebhookEventType = WebhookEvent["event"];

/** POST /api/v1/deposit-addresses body. */
export type CreateDepositAddressParams = Json<operations["postDepositAddresses"]["requestBody"]>;

/** A customer's static deposit address. */
export type DepositAddress = Json<operations["postDepositAddresses"]["responses"][201]>;

/** GET /api/v1/deposit-addresses/:id: the address and its newest deposits. */
export type DepositAddressWithDeposits = Json<operations["getDepositAddressesId"]["responses"][200]>;

/** Filters of GET /api/v1/deposit-addresses; the iterator does the paging itself. */
export type ListDepositAddressesFilters = Omit<
  NonNullable<operations["getDepositAddresses"]["parameters"]["query"]>,
  "page" | "limit"
> & { pageSize?: number };

export type DepositAddressPage = Json<operations["getDepositAddresses"]["responses"][200]>;

/** One USDT transfer to a static address. */
export type Deposit = Json<operations["getDepositsId"]["responses"][200]>;

/** Filters of GET /api/v1/deposits; the iterator does the paging itself. */
export type ListDepositsFilters = Omit<
  NonNullable<operations["getDeposits"]["parameters"]["query"]>,
  "page" | "limit"
> & {
  pageSize?: number;
};

export type DepositPage = Json<operations["getDeposits"]["responses"][200]>;

/** POST /api/v1/deposit-addresses/:id/simulate body (devnet only). */
export type SimulateDepositParams = Json<operations["postDepositAddressesIdSimulate"]["requestBody"]>;

/** The devnet transfer that made the deposit. */
export type SimulatedDeposit = Json<operations["postDepositAddressesIdSimulate"]["responses"][202]>;

/** POST /api/v1/payments/:id/refunds body: amount (decimal string), address (or none: a claim link), reason, callback_url. */
export type CreateRefundParams = Json<operations["postPaymentsIdRefunds"]["requestBody"]>;

/** A refund as created: a payout of kind "refund"; `claim_url` when it was created without an address. */
export type Refund = Json<operations["postPaymentsIdRefunds"]["responses"][201]>;

/** POST /api/v1/payouts body: external_id makes it idempotent. */
export type CreatePayoutParams = Json<operations["postPayouts"]["requestBody"]>;

/** A refund or payout as the merchant API answers it (kind tells which). */
export type Payout = Json<operations["getPayoutsId"]["responses"][200]>;

export type PayoutStatus = Payout["status"];

/** Filters of GET /api/v1/payouts (kind, status, order_id); the iterator follows the cursors itself. */
export type ListPayoutsFilters = Omit<
  NonNullable<operations["getPayouts"]["parameters"]["query"]>,
  "cursor" | "limit"
> & { pageSize?: number };

export type PayoutPage = Json<operations["getPayouts"]["responses"][200]>;
