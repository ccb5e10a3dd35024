import type { Context } from "../context.js";
import { appendAudit } from "../audit/append-audit.js";
import { BUILTIN_OWNER_ID } from "./operator-types.js";
import { authenticateSession, revokeSession } from "./sessions.js";

/**
 * Logout ends the session row, not only the cookie: a copy of the token stops working too. A missing,
 * broken or already ended session is simply nothing to revoke (logout always succeeds).
 */
export async function logoutAdmin(
  ctx: Context,
  input: { token: string | undefined; ip: string; userAgent?: string | undefined },
): Promise<void> {
  if (input.token === undefined || input.token === "") return;
  const operator = await authenticateSession(ctx, input.token).catch(() => undefined);
  if (!operator) return;
  await ctx.db.transaction(async (tx) => {
    if (!(await revokeSession(ctx, tx, operator.sessionId, "logout"))) return;
    await appendAudit(tx, {
      actor: {
        kind: "operator",
        id: operator.id,
        label: operator.id === BUILTIN_OWNER_ID ? "owner" : operator.email,
      },
      action: "auth.logout",
      targetType: "session",
      targetId: operator.sessionId,
      ip: input.ip,
      userAgent: input.userAgent,
      at: ctx.clock.now(),
    });
  });
}
