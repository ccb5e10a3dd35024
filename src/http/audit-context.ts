/**
 * Who made a request and from where, for audit rows (INTERFACES.md, DESIGN.md 12): the operator of an
 * admin session, or the merchant of an API key (named by its key prefix, never the key).
 */
import type { FastifyRequest } from "fastify";
import { operatorLabel } from "../admin/operator-types.js";
import type { AuditActor, AuditOrigin } from "../audit/audit-types.js";

export function auditActorOf(request: FastifyRequest): AuditActor {
  const operator = (request as { operator?: FastifyRequest["operator"] | null }).operator;
  if (operator) {
    return { kind: "operator", id: operator.id, label: operatorLabel({ email: operator.email || null }) };
  }
  const merchant = (request as { merchant?: FastifyRequest["merchant"] }).merchant;
  if (merchant) return { kind: "merchant", id: merchant.id, label: merchant.apiKeyPrefix };
  throw new Error("auditActorOf: the request has neither an operator nor a merchant");
}

export function requestMeta(request: FastifyRequest): { ip: string; userAgent: string | undefined } {
  const agent = request.headers["user-agent"];
  return { ip: request.ip, userAgent: typeof agent === "string" ? agent : undefined };
}

/** auditActorOf and requestMeta together: what a domain function takes to write its audit row. */
export function auditOriginOf(request: FastifyRequest): AuditOrigin {
  return { actor: auditActorOf(request), ...requestMeta(request) };
}
