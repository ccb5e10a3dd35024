/**
 * The actor of a request, for resolutions' events and audit rows. Issue 22 replaces these with
 * auditActorOf(request) (named operators); until then every admin session is the built-in owner.
 */
import type { FastifyRequest } from "fastify";
import type { ResolutionActor } from "../orders/resolution-actor.js";
import { requireMerchant } from "./plugins/merchant-auth.js";

export function adminActor(_request: FastifyRequest): ResolutionActor {
  return { kind: "operator", id: "owner", label: "owner" };
}

export function merchantActor(request: FastifyRequest): ResolutionActor {
  const merchant = requireMerchant(request);
  return { kind: "merchant", id: merchant.id, label: merchant.apiKeyPrefix };
}
