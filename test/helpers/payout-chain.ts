/**
 * Helpers for tests that move refunds and payouts on the devnet: fresh TRON accounts and a sender
 * loop (the real runDuePayouts, with blocks mined and the test clock moved between rounds) that
 * stops at a status or fails naming the state it saw.
 */
import { eq } from "drizzle-orm";
import { TronWeb } from "tronweb";
import { payouts } from "../../src/db/schema.js";
import { createPayout } from "../../src/payouts/create-payout.js";
import { decidePayout } from "../../src/payouts/decide-payout.js";
import { runDuePayouts, type SenderOptions } from "../../src/payouts/send-payouts.js";
import { SOLIDIFY_AFTER, type ChainTest } from "../chain/helpers.js";

export async function newTronAccount(): Promise<{ privateKey: string; address: string }> {
  const account = await TronWeb.createAccount();
  return { privateKey: account.privateKey, address: account.address.base58 as string };
}

/** A payout the merchant (labelled `label`) creates and a second operator approves; its id. */
export async function approvedPayout(
  t: ChainTest,
  label: string,
  to: string,
  externalId: string,
  amount: string,
): Promise<string> {
  const { payout } = await createPayout(
    t.ctx,
    t.merchantId,
    { kind: "merchant", id: t.merchantId, label },
    { external_id: externalId, amount, address: to },
  );
  await decidePayout(t.ctx, {
    id: payout.id,
    decision: "approve",
    actor: { kind: "operator", id: "op-2", label: "second" },
  });
  return payout.id;
}

export async function payoutRow(t: ChainTest, id: string) {
  const [row] = await t.ctx.db.select().from(payouts).where(eq(payouts.id, id));
  if (!row) throw new Error(`payout ${id} not found`);
  return row;
}

/**
 * Runs the sender, mines past solidification and moves the clock past any wait, until the payout
 * reaches one of `statuses`; after `rounds` rounds it throws with the payout's last state.
 */
export async function sendPayoutUntil(
  t: ChainTest,
  id: string,
  statuses: readonly string[] = ["completed"],
  options: SenderOptions = {},
  rounds = 20,
) {
  let row = await payoutRow(t, id);
  for (let i = 0; i < rounds && !statuses.includes(row.status); i++) {
    await runDuePayouts(t.ctx, options);
    t.devnet.mine(SOLIDIFY_AFTER + 1);
    t.clock.advance(60_000);
    row = await payoutRow(t, id);
  }
  if (!statuses.includes(row.status)) {
    throw new Error(
      `payout ${id} is ${row.status} (last_error: ${row.lastError ?? "none"}) after ${rounds} sender rounds; waited for ${statuses.join(" or ")}`,
    );
  }
  return row;
}
