import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOLIDIFY_AFTER, startChainTest, type ChainTest } from "./helpers.js";

const USDT = 1_000_000n;
// More confirmations than the solidified lag: a block can be proven solidified before its
// transfers have their confirmations.
const CONFIRMATIONS = SOLIDIFY_AFTER + 3;

let t: ChainTest;

beforeAll(async () => {
  t = await startChainTest({ env: { CONFIRMATIONS: String(CONFIRMATIONS) } });
  await t.scanner.sync();
});
afterAll(() => t.close());

async function solidifiedCalls(): Promise<number> {
  const info = await fetch(`${t.devnet.url}/devnet/info`).then(
    (r) => r.json() as Promise<{ requests: { by_path: Record<string, number> } }>,
  );
  return Object.entries(info.requests.by_path)
    .filter(([path]) => path.startsWith("/walletsolidity/"))
    .reduce((sum, [, n]) => sum + n, 0);
}

describe("the confirmer's node calls", () => {
  it("proves transfers in several blocks with one solidified reading, and reuses a proof without calling", async () => {
    await t.devnetPost("/devnet/requests/reset");
    const a = await t.order("1");
    const b = await t.order("2");
    const c = await t.order("3");
    await t.pay(a.address, 1n * USDT);
    await t.pay(b.address, 2n * USDT);
    t.mine();
    await t.pay(c.address, 3n * USDT);
    t.mine(); // paidAt: the block holding c
    await t.scanner.sync();
    expect(await solidifiedCalls()).toBe(0); // detected, nothing has its confirmations yet

    // head = paidAt + CONFIRMATIONS - 2: a and b (one block earlier) have their confirmations; c is
    // one short, though its block is already at or below the solidified head
    t.mine(CONFIRMATIONS - 2);
    await t.scanner.sync();
    expect((await t.orderRow(a.id)).status).toBe("confirmed");
    expect((await t.orderRow(b.id)).status).toBe("confirmed");
    expect((await t.orderRow(c.id)).status).toBe("detected");
    expect(await solidifiedCalls()).toBe(1);

    t.mine();
    await t.scanner.sync();
    expect((await t.orderRow(c.id)).status).toBe("confirmed");
    expect(await solidifiedCalls()).toBe(1);

    // nothing due: scanning on costs no solidified reading
    t.mine(5);
    await t.scanner.sync();
    expect(await solidifiedCalls()).toBe(1);
  });
});
