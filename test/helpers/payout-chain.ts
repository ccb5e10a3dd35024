/**
 * Helpers for tests that move refunds and payouts on the devnet: fresh TRON accounts and a sender
 * loop (the real runDuePayouts, with blocks mined and the test clock moved between rounds) that
 * stops at a status or fails naming the state it saw.
 */
import { eq } from "drizzle-orm";
import { TronWeb } from "tronweb";
import { payouts } from "../../src/db/schema.js";
import { runDuePayouts, type SenderOptions } from "../../src/payouts/send-payouts.js";
import { SOLIDIFY_AFTER, type ChainTest } from "../chain/helpers.js";

export async function newTronAccount(): Promise<{ privateKey: string; address: string }> {
  const account = await TronWeb.createAccount();
  return { privateKey: account.privateKey, address: account.address.base58 as string };
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
