/**
 * An operator's resolution of an order (DESIGN.md 13): cancel it, accept it as it stands, or attach
 * a stray transfer to it. Each runs in its own transaction; the answer is the order's admin detail
 * as the resolution left it.
 */
import type { OperatorRole } from "../admin/operator-types.js";
import type { Context } from "../context.js";
import { assertNever } from "../errors.js";
import { attachStrayTransfer, type AttachInput } from "../strays/attach-stray-transfer.js";
import { acceptOrder, type AcceptInput } from "./accept-order.js";
import { cancelOrder, type CancelInput } from "./cancel-order.js";
import { getAdminOrder, type AdminOrderDetail } from "./get-admin-order.js";
import type { OrderRow } from "./transitions.js";

export type AdminResolution =
  | { kind: "cancel"; input: Omit<CancelInput, "merchantId"> }
  | { kind: "accept"; input: AcceptInput }
  | { kind: "attach"; input: AttachInput };

function resolve(ctx: Context, resolution: AdminResolution): Promise<OrderRow> {
  switch (resolution.kind) {
    case "cancel":
      return cancelOrder(ctx, resolution.input);
    case "accept":
      return acceptOrder(ctx, resolution.input);
    case "attach":
      return attachStrayTransfer(ctx, resolution.input);
    default:
      return assertNever(resolution);
  }
}

export async function resolveAdminOrder(
  ctx: Context,
  resolution: AdminResolution,
  role: OperatorRole,
): Promise<AdminOrderDetail> {
  const order = await resolve(ctx, resolution);
  return getAdminOrder(ctx, order.id, role);
}
