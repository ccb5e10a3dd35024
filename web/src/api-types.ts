/**
 * The web UI's names for the API's shapes, every one picked out of the types openapi-typescript
 * generates from docs/openapi.json (`@stablegate/sdk/api-types`, `npm run generate:openapi`).
 * Nothing here is written by hand, so a change to a reply fails to compile where a page reads it.
 */
import type { components, operations } from "@stablegate/sdk/api-types";

type Json<T> = T extends { content: { "application/json": infer Body } } ? Body : never;
type Responses<Op extends keyof operations> = operations[Op]["responses"];
/** The operations that can answer with `status`. */
type Answering<Status extends number> = {
  [Op in keyof operations]: Status extends keyof Responses<Op> ? Op : never;
}[keyof operations];
/**
 * The JSON body of an operation's reply with `status`. Naming a status the operation does not
 * answer fails to compile (rather than giving `never`, which every read would accept unchecked).
 */
type Reply<Op extends Answering<Status>, Status extends number = 200> = Json<
  Responses<Op>[Status & keyof Responses<Op>]
>;

/** The one shape of every refusal (SPEC.md 7). */
export type ErrorBody = components["schemas"]["Error"];
export type ErrorCode = ErrorBody["code"];

// The public pages.
/** GET /api/v1/checkout/:id/status. */
export type CheckoutStatus = Reply<"getCheckoutIdStatus">;
/** GET and POST /api/v1/refund-claims/:token. */
export type RefundClaimView = Reply<"getRefundClaimsToken">;

// The operator dashboard: /api/v1/admin/...
export type Me = Reply<"getAdminMe">;
export type Role = Me["role"];
export type AcceptedInvitation = Reply<"postAdminAuthAcceptInvitation">;
export type PasswordChanged = Reply<"postAdminMePassword">;
export type TotpSetup = Reply<"postAdminMeTotpSetup">;
/** GET /api/v1/admin/me/passkeys. */
export type Passkeys = Reply<"getAdminMePasskeys">;
export type RecoveryCodes = Reply<"postAdminMeTotpConfirm">;
export type SessionList = Reply<"getAdminSessions">;

export type Stats = Reply<"getAdminStats">;
export type DailyRevenue = Reply<"getAdminStatsDaily">[number];
export type IncidentList = Reply<"getAdminIncidents">;
export type AlertList = Reply<"getAdminAlerts">;
export type AlertView = AlertList["firing"][number];
export type AdminChainStatus = Reply<"getAdminChain">;
export type WalletStatus = Reply<"getAdminWallet">;

export type MerchantList = Reply<"getAdminMerchants">;
export type MerchantSummary = MerchantList["data"][number];
export type MerchantDetail = Reply<"getAdminMerchantsId">;
/** A new merchant, or a rotated key: the API key is in the reply this once. */
export type MerchantWithKey = Reply<"postAdminMerchants", 201> | Reply<"postAdminMerchantsIdRotateApiKey">;

export type OrderList = Reply<"getAdminOrders">;
export type OrderDetail = Reply<"getAdminOrdersId">;
/** The order page's actions: a retried webhook or sweep, or a devnet payment. */
export type OrderActionResult =
  | Reply<"postAdminOrdersIdRetryWebhook">
  | Reply<"postAdminOrdersIdRetrySweep">
  | Reply<"postAdminOrdersIdSimulate", 202>;

export type StrayList = Reply<"getAdminStrayTransfers">;
export type StrayTransferView = StrayList["data"][number];
export type StrayDetail = Reply<"getAdminStrayTransfersId">;

export type DepositAddressList = Reply<"getAdminDepositAddresses">;
export type DepositAddressDetail = Reply<"getAdminDepositAddressesId">;
export type DepositList = Reply<"getAdminDeposits">;

export type OperatorList = Reply<"getAdminOperators">;
export type CreatedOperator = Reply<"postAdminOperators", 201>;

export type AuditList = Reply<"getAdminAudit">;

export type PayoutList = Reply<"getAdminPayouts">;
export type Payout = PayoutList["data"][number];
export type PayoutStatus = Payout["status"];
export type PayoutFloat = Reply<"getAdminPayoutsFloat">;
export type PayoutDetail = Reply<"getAdminPayoutsId">;
/** A refund as created: `claim_url` when it was created without an address. */
export type CreatedRefund = Reply<"postAdminOrdersIdRefunds", 201>;
