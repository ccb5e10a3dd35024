/**
 * Dismisses a stray transfer with a reason (DESIGN.md 13): the operator decided nobody is owed it
 * (a test, the operator's own transfer). The money is still swept like any stray; dismissing only
 * closes the case. Refused (409 INVALID_STATE) once it is resolved.
 */
import { eq, sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { strayTransfers } from "../db/schema.js";
import { AppError } from "../errors.js";
import { isUuid } from "../ids.js";
import { actorRecord, type ResolutionActor, type ResolutionOrigin } from "../orders/resolution-actor.js";
import { recordResolutionAudit } from "../orders/resolution-audit.js";
import { readStrayViews, type StrayTransferView } from "./stray-view.js";

export async function dismissStrayTransfer(
  ctx: Context,
  input: { id: string; actor: ResolutionActor; origin?: ResolutionOrigin; reason: string },
): Promise<StrayTransferView> {
  const notFound = new AppError("NOT_FOUND", "stray transfer not found");
  if (!isUuid(input.id)) throw notFound;
  return ctx.db.transaction(async (tx) => {
    const [stray] = await tx
      .select()
      .from(strayTransfers)
      .where(eq(strayTransfers.id, input.id))
      .for("update");
    if (!stray) throw notFound;
    if (stray.resolution !== null) {
      throw new AppError("INVALID_STATE", `the stray transfer is already ${stray.resolution}`);
    }
    if (stray.status !== "confirmed") {
      throw new AppError(
        "INVALID_STATE",
        "the stray transfer is not confirmed yet (a fork may still drop it)",
      );
    }
    const now = ctx.clock.now();
    await tx
      .update(strayTransfers)
      .set({
        resolution: "dismissed",
        resolutionReason: input.reason,
        resolvedBy: actorRecord(input.actor),
        resolvedAt: now,
      })
      .where(eq(strayTransfers.id, stray.id));
    await recordResolutionAudit(ctx, tx, {
      actor: input.actor,
      origin: input.origin,
      action: "stray.dismiss",
      strayId: stray.id,
      reason: input.reason,
      before: { resolution: null },
      after: { resolution: "dismissed" },
    });
    const [view] = await readStrayViews(ctx, tx, sql`WHERE st.id = ${stray.id}::uuid`);
    return view as StrayTransferView;
  });
}
