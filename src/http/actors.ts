/** The actor and origin of a request, for resolutions' events and audit rows (DESIGN.md 12, 13). */
import type { FastifyRequest } from "fastify";
import type { ResolutionActor, ResolutionOrigin } from "../orders/resolution-actor.js";
import { auditActorOf, requestMeta } from "./audit-context.js";

export function resolutionBy(request: FastifyRequest): { actor: ResolutionActor; origin: ResolutionOrigin } {
  return { actor: auditActorOf(request), origin: requestMeta(request) };
}
