/**
 * GET /api/v1/admin/incidents: what needs an operator's eye, newest first: the orders' failed
 * webhooks and sweeps (SPEC.md 2.3), the unresolved stray transfers (DESIGN.md 13) and the deposits
 * to disabled addresses (DESIGN.md 15), and the failing webhook deliveries, read concurrently.
 */
import type { Context } from "../context.js";
import type { DepositView } from "../deposits/deposit-address-view.js";
import { listDisabledDepositIncidents } from "../deposits/list-deposits.js";
import { listIncidents, type Incident } from "../orders/list-incidents.js";
import { listStrayIncidents } from "../strays/list-stray-transfers.js";
import type { StrayTransferView } from "../strays/stray-view.js";
import { listFailingWebhooks, type FailingWebhookView } from "../webhooks/list-failing-webhooks.js";

export interface Incidents {
  orders: Incident[];
  strayTransfers: StrayTransferView[];
  depositsToDisabledAddresses: (DepositView & { merchant_id: string })[];
  failingWebhooks: FailingWebhookView[];
}

export async function getIncidents(ctx: Context): Promise<Incidents> {
  const [orders, strayTransfers, depositsToDisabledAddresses, failingWebhooks] = await Promise.all([
    listIncidents(ctx),
    listStrayIncidents(ctx),
    listDisabledDepositIncidents(ctx),
    listFailingWebhooks(ctx),
  ]);
  return { orders, strayTransfers, depositsToDisabledAddresses, failingWebhooks };
}
