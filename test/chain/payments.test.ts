import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expireOrders } from "../../src/payments/expire-orders.js";
import { startChainTest, type ChainTest } from "./helpers.js";

const USDT = 1_000_000n;

let t: ChainTest;

beforeAll(async () => {
  t = await startChainTest();
  await t.scanner.sync(); // first start: the cursor is placed at the head
});
afterAll(() => t.close());

describe("payments from the chain", () => {
  it("detects an exact payment, then confirms it with the amount, tx_hash and an outcome webhook", async () => {
    const order = await t.order("10");
    const txid = await t.pay(order.address, 10n * USDT);
    t.mine();
    await t.scanner.sync();

    let row = await t.orderRow(order.id);
    expect(row.status).toBe("detected");
    expect(row.txHash).toBe(txid);
    expect(row.fromAddress).toBe(t.devnet.faucetAddress);
    expect(row.detectedAt).not.toBeNull();
    expect(row.amountReceived).toBe(0n); // only confirmed transfers count
    expect((await t.transfersOf(order.id)).map((x) => [x.txHash, x.status, x.amount])).toEqual([
      [txid, "seen", 10n * USDT],
    ]);
    expect(await t.deliveries(order.id)).toEqual([]);

    await t.finalize();
    row = await t.orderRow(order.id);
    expect(row.status).toBe("confirmed");
    expect(row.amountReceived).toBe(10n * USDT);
    expect(row.txHash).toBe(txid);
    expect(await t.events(order.id)).toEqual(["order_created", "payment_detected", "payment_confirmed"]);
    const [delivery] = await t.deliveries(order.id);
    expect(delivery?.event).toBe("payment.confirmed");
    expect(delivery?.idempotencyKey).toMatch(new RegExp(`^evt_${order.id}_payment\\.confirmed_\\d+$`));
    expect(JSON.parse(delivery?.payload ?? "{}")).toMatchObject({
      event: "payment.confirmed",
      order_id: order.id,
      amount_expected: "10.000000",
      amount_received: "10.000000",
      tx_hash: txid,
      from_address: t.devnet.faucetAddress,
      to_address: order.address,
      status: "confirmed",
      network: "devnet",
    });
    expect((await t.transfersOf(order.id))[0]?.status).toBe("confirmed");
  });

  it("marks the order underpaid when 9.99 of 10 USDT arrives", async () => {
    const order = await t.order("10");
    await t.pay(order.address, 9_990_000n);
    t.mine();
    await t.finalize();
    const row = await t.orderRow(order.id);
    expect(row.status).toBe("underpaid");
    expect(row.amountReceived).toBe(9_990_000n);
    expect((await t.deliveries(order.id)).map((d) => d.event)).toEqual(["payment.underpaid"]);
  });

  it("marks the order overpaid when 10.5 of 10 USDT arrives", async () => {
    const order = await t.order("10");
    await t.pay(order.address, 10_500_000n);
    t.mine();
    await t.finalize();
    const row = await t.orderRow(order.id);
    expect(row.status).toBe("overpaid");
    expect(row.amountReceived).toBe(10_500_000n);
    expect((await t.deliveries(order.id)).map((d) => d.event)).toEqual(["payment.overpaid"]);
  });

  it("sums two transfers and keeps the first one's tx_hash", async () => {
    const order = await t.order("10");
    const first = await t.pay(order.address, 4n * USDT);
    t.mine();
    await t.scanner.sync();
    const second = await t.pay(order.address, 6n * USDT);
    t.mine();
    await t.scanner.sync();
    expect((await t.orderRow(order.id)).status).toBe("detected");

    // The first transfer becomes final one block before the second: the order waits for both.
    t.mine(2);
    await t.scanner.sync();
    const waiting = await t.transfersOf(order.id);
    expect(waiting.map((x) => x.status)).toEqual(["confirmed", "seen"]);
    expect((await t.orderRow(order.id)).status).toBe("detected");

    await t.finalize();
    const row = await t.orderRow(order.id);
    expect(row.status).toBe("confirmed");
    expect(row.amountReceived).toBe(10n * USDT);
    expect(row.txHash).toBe(first);
    expect((await t.transfersOf(order.id)).map((x) => x.txHash)).toEqual([first, second]);
    expect(await t.events(order.id)).toEqual(["order_created", "payment_detected", "payment_confirmed"]);
  });

  it("turns an underpaid order into confirmed when the rest arrives (additional_payment, new webhook)", async () => {
    const order = await t.order("10");
    await t.pay(order.address, 7n * USDT);
    t.mine();
    await t.finalize();
    expect((await t.orderRow(order.id)).status).toBe("underpaid");

    t.clock.advanceSeconds(60);
    await t.pay(order.address, 3n * USDT);
    t.mine();
    await t.scanner.sync();
    // Seen but not final: the outcome stands until the top-up is confirmed.
    expect((await t.orderRow(order.id)).status).toBe("underpaid");
    expect((await t.orderRow(order.id)).amountReceived).toBe(7n * USDT);

    await t.finalize();
    const row = await t.orderRow(order.id);
    expect(row.status).toBe("confirmed");
    expect(row.amountReceived).toBe(10n * USDT);
    expect(await t.events(order.id)).toEqual([
      "order_created",
      "payment_detected",
      "payment_underpaid",
      "additional_payment",
    ]);
    const deliveries = await t.deliveries(order.id);
    expect(deliveries.map((d) => d.event)).toEqual(["payment.underpaid", "payment.confirmed"]);
    expect(deliveries[0]?.idempotencyKey).not.toBe(deliveries[1]?.idempotencyKey);
    expect(JSON.parse(deliveries[1]?.payload ?? "{}")).toMatchObject({
      status: "confirmed",
      amount_received: "10.000000",
    });
  });

  it("credits a payment that arrives after expiry (late_payment), then confirms it", async () => {
    const order = await t.order("5", { expiresIn: 60 });
    t.clock.advanceSeconds(61);
    await expireOrders(t.ctx);
    expect((await t.orderRow(order.id)).status).toBe("expired");

    await t.pay(order.address, 5n * USDT);
    t.mine();
    await t.scanner.sync();
    expect((await t.orderRow(order.id)).status).toBe("detected");
    await t.finalize();
    const row = await t.orderRow(order.id);
    expect(row.status).toBe("confirmed");
    expect(row.amountReceived).toBe(5n * USDT);
    expect(await t.events(order.id)).toEqual([
      "order_created",
      "order_expired",
      "late_payment",
      "payment_confirmed",
    ]);
  });

  it("scans a block with payments to several orders in one pass", async () => {
    const a = await t.order("1");
    const b = await t.order("2");
    await t.pay(a.address, 1n * USDT);
    await t.pay(b.address, 2n * USDT);
    t.mine();
    await t.finalize();
    expect((await t.orderRow(a.id)).status).toBe("confirmed");
    expect((await t.orderRow(b.id)).status).toBe("confirmed");
    expect(await t.cursor()).toBe(t.mine(0));
  });
});
