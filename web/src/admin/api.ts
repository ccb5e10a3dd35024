/** The admin API (SPEC.md 4.3-4.5) as the dashboard calls it: same origin, the admin_token cookie. */
import type {
  AdminChainStatus,
  AdminOrderSummary,
  AddressPoolCounts,
  Incident,
  StrayTransferView,
  WalletStatus,
} from "../../../src/admin/api-shapes.js";

export type { AdminChainStatus, Incident, StrayTransferView, WalletStatus };
export type OrderSummary = AdminOrderSummary;
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Set by the app: called when the session is missing or expired, so it can show the login. */
let onUnauthorized: () => void = () => undefined;
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/api/v1/admin${path}`, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? { accept: "application/json" } : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = (await response.json().catch(() => ({}))) as { error?: string; code?: string };
  if (!response.ok) {
    const error = new ApiError(
      response.status,
      data.code ?? "ERROR",
      data.error ?? `HTTP ${response.status}`,
    );
    // Only a missing or ended session signs out; TOTP_REQUIRED / TOTP_INVALID (401 too) ask for a code.
    if (error.code === "ADMIN_UNAUTHORIZED" || error.code === "ADMIN_TOKEN_INVALID") onUnauthorized();
    throw error;
  }
  return data as T;
}

export const api = {
  get: <T>(path: string) => request<T>("GET", path),
  post: <T>(path: string, body?: unknown) => request<T>("POST", path, body),
  put: <T>(path: string, body: unknown) => request<T>("PUT", path, body),
  del: <T>(path: string) => request<T>("DELETE", path),
};

/** GET /api/v1/admin/me: who is signed in, and what their role may do. */
export interface Me {
  id: string;
  email: string | null;
  name: string;
  role: "owner" | "admin" | "support" | "viewer";
  is_builtin: boolean;
  session_id: string;
  totp_enabled: boolean;
  totp_required: boolean;
  recovery_codes_left: number;
  permissions: string[];
}

export interface StatsBlock {
  order_count: number;
  completed_count: number;
  total_received: string;
  success_rate: string;
  merchant_count?: number;
}
export interface DepositStatsBlock {
  deposit_count: number;
  total_received: string;
}
export interface Stats {
  today: StatsBlock;
  week: StatsBlock;
  total: StatsBlock;
  address_pool: AddressPoolCounts;
  deposits: { today: DepositStatsBlock; week: DepositStatsBlock; total: DepositStatsBlock };
}
export interface DepositAddressSummary {
  id: string;
  merchant_id: string;
  customer_ref: string;
  address: string;
  status: "active" | "disabled";
  callback_url: string;
  deposit_count: number;
  total_received: string;
  created_at: string;
  disabled_at: string | null;
}
export interface DepositSummary {
  id: string;
  deposit_address_id: string;
  customer_ref: string;
  amount: string;
  status: "detected" | "confirmed" | "reverted";
  tx_hash: string;
  from_address: string;
  below_minimum: boolean;
  address_status: "active" | "disabled";
  swept: boolean;
  detected_at: string;
}
export type DepositAddressDetail = DepositAddressSummary & { recent_deposits: DepositSummary[] };
export interface MerchantSummary {
  id: string;
  name: string;
  api_key_prefix: string;
  is_active: boolean;
  created_at: string;
  order_count: number;
}
/** GET /merchants/:id (src/http/schemas/get-merchant-detail.ts), the fields the page shows. */
export interface MerchantDetail extends MerchantSummary {
  completed_count: number;
  active_order_count: number;
  total_received: string;
  success_rate: string;
  balance: { available: string; reserved: string };
  recent_orders: OrderSummary[];
}
export interface Pagination {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
}
export interface OrderEvent {
  id: string;
  event_type: string;
  payload: Record<string, unknown>;
  created_at: string;
}
export interface OrderDetail {
  order: OrderSummary & { callback_url: string; metadata: unknown };
  events: OrderEvent[];
  transaction: Record<string, unknown> | null;
  settlement: Record<string, unknown> | null;
  meta: Record<string, unknown>;
  webhooks?: Array<Record<string, unknown>>;
  resolutions?: Resolution[];
  actions?: { cancel: boolean; accept: boolean; attach: boolean };
}

/** A cancel, accept or attach done on an order (DESIGN.md 13). */
export interface Resolution {
  event_id: string;
  action: "cancel" | "accept" | "attach";
  actor: { kind: string; id?: string; label: string } | null;
  reason: string | null;
  tx_hash: string | null;
  amount: string | null;
  created_at: string;
}

export interface StrayDetail {
  stray: StrayTransferView;
  address: {
    address: string;
    status: string;
    order_id: string | null;
    last_order_id: string | null;
    strays: StrayTransferView[];
    settlement: Record<string, unknown> | null;
  };
}

/** GET /alerts (src/alerts/list-alerts.ts), the fields the overview shows. */
export interface AlertView {
  id: string;
  alert: string;
  kind: "condition" | "event";
  severity: string;
  state: "firing" | "resolved";
  text: string;
  fired_at: string;
  resolved_at: string | null;
}
export interface AlertList {
  firing: AlertView[];
  recent: AlertView[];
}
