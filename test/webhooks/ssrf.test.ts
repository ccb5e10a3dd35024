/**
 * The SSRF guard. Every test sends traffic only to 127.0.0.0/8 or ::1; addresses outside loopback
 * (10.0.0.1, 169.254.169.254) appear only where the guard must refuse them before any socket is
 * opened, with a short timeout so a broken guard fails fast instead of hanging.
 */
import { lookup } from "node:dns";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { buildConnector } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { webhookDeliveries } from "../../src/db/schema.js";
import { createWebhookDeliverer } from "../../src/webhooks/deliver-webhooks.js";
import { createWebhookDispatcher, sendWebhook } from "../../src/webhooks/send-webhook.js";
import { assertCallbackUrlAllowed, isBlockedAddress, type Resolver } from "../../src/webhooks/ssrf.js";
import {
  confirmPayment,
  createMerchant,
  createOrder,
  createWebhookTestContext,
  type Receiver,
  startReceiver,
  type WebhookTestContext,
} from "./fixtures.js";

describe("isBlockedAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.255.254",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "100.127.255.255",
    "0.0.0.0",
    "0.1.2.3",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "192.0.2.10",
    "198.51.100.7",
    "203.0.113.9",
    "198.18.0.1",
    "::",
    "::1",
    "[::1]",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "[::ffff:7f00:1]",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::127.0.0.1",
    "::7f00:1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::1",
    "fc00::1",
    "fd12:3456:789a::1",
    "fe80::1",
    "fe80::1%eth0",
    "ff02::1",
    "2001:db8::1",
    "2001::1",
    "3fff::1",
    "not-an-ip",
  ])("refuses %s", (address) => {
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "169.253.255.255",
    "223.255.255.255",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
  ])("allows the global address %s", (address) => {
    expect(isBlockedAddress(address)).toBe(false);
  });
});

describe("assertCallbackUrlAllowed", () => {
  const guarded = { webhookAllowPrivateNetworks: false };
  const open = { webhookAllowPrivateNetworks: true };

  it("refuses private IP literals and localhost names while the guard is on", () => {
    for (const url of [
      "http://127.0.0.1/hook",
      "http://10.0.0.1/",
      "https://169.254.169.254/latest/meta-data",
      "http://[::1]:8080/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:7f00:1]/",
      "http://0x7f.1/", // the URL parser normalises odd IPv4 spellings to 127.0.0.1
      "http://2130706433/",
      "http://localhost:3000/",
      "http://api.localhost/",
    ]) {
      expect(assertCallbackUrlAllowed(guarded, url), url).toMatch(/private, loopback or reserved/);
      expect(assertCallbackUrlAllowed(open, url), url).toBeNull();
    }
  });

  it("accepts public literals and hostnames (checked again at connect time)", () => {
    for (const url of [
      "https://8.8.8.8/hook",
      "https://merchant.example.com/webhooks",
      "http://[2606:4700::1]/",
    ]) {
      expect(assertCallbackUrlAllowed(guarded, url), url).toBeNull();
    }
  });

  it("refuses what is not an absolute http(s) URL whatever the guard", () => {
    for (const config of [guarded, open]) {
      expect(assertCallbackUrlAllowed(config, "not a url")).toMatch(/absolute http\(s\) URL/);
      expect(assertCallbackUrlAllowed(config, "/relative")).toMatch(/absolute http\(s\) URL/);
      expect(assertCallbackUrlAllowed(config, "ftp://example.com/")).toMatch(/http\(s\) URL/);
      expect(assertCallbackUrlAllowed(config, "file:///etc/passwd")).toMatch(/http\(s\) URL/);
    }
  });
});

describe("the guard at connect time", () => {
  let v4: Receiver;
  let v6: Receiver;
  // A name that "rebinds" to loopback: resolved by the guard, never by the system resolver.
  const rebinding: Resolver = (hostname, options, callback) => {
    if (hostname === "rebind.example.test") callback(null, [{ address: "127.0.0.1", family: 4 }]);
    else lookup(hostname, options, callback);
  };

  beforeAll(async () => {
    v4 = await startReceiver();
    v6 = await startReceiver(undefined, { host: "::1" });
  });
  afterAll(async () => {
    await v4.close();
    await v6.close();
  });

  // Whatever the guard lets through reaches this connector, which opens loopback sockets only.
  const tripped: string[] = [];
  const loopbackOnly = (options: buildConnector.BuildOptions): buildConnector.connector => {
    const real = buildConnector(options);
    return (connectOptions, callback) => {
      const host = connectOptions.hostname;
      if (!(
        host === "localhost" ||
        host.startsWith("127.") ||
        host === "::1" ||
        host.endsWith(".test") ||
        /^::ffff:(127\.|7f)/.test(host)
      )) {
        tripped.push(host);
        callback(new Error(`tripwire: ${host} is outside loopback`), null);
        return;
      }
      real(connectOptions, callback);
    };
  };

  const send = async (url: string, allowPrivateNetworks: boolean) => {
    const dispatcher = createWebhookDispatcher({
      allowPrivateNetworks,
      timeoutMs: 1500,
      resolver: rebinding,
      buildConnector: loopbackOnly,
    });
    try {
      return await sendWebhook(
        {
          url,
          body: '{"event":"payment.confirmed"}',
          secret: "secret-123",
          idempotencyKey: "evt_x",
          at: new Date(),
        },
        { dispatcher, timeoutMs: 1500 },
      );
    } finally {
      await dispatcher.close();
    }
  };

  const loopbackUrls = () => [
    `http://127.0.0.1:${v4.port}/hooks`,
    `http://localhost:${v4.port}/hooks`,
    `http://rebind.example.test:${v4.port}/hooks`,
    `http://[::ffff:127.0.0.1]:${v4.port}/hooks`,
    `http://[::ffff:7f00:1]:${v4.port}/hooks`,
    `http://[::1]:${v6.port}/hooks`,
  ];

  it("refuses loopback literals, mapped forms and names resolving to loopback before connecting", async () => {
    const before = v4.requests.length + v6.requests.length;
    for (const url of loopbackUrls()) {
      const result = await send(url, false);
      expect(result, url).toMatchObject({ success: false, statusCode: null, error: "blocked address" });
    }
    expect(v4.requests.length + v6.requests.length).toBe(before);
  });

  it("refuses private and metadata addresses without sending a packet", async () => {
    for (const url of ["http://10.0.0.1/hooks", "http://169.254.169.254/latest/meta-data/"]) {
      const started = Date.now();
      const result = await send(url, false);
      expect(result, url).toMatchObject({ success: false, error: "blocked address" });
      // Refused by the guard, not by a connect timeout or the tripwire.
      expect(Date.now() - started).toBeLessThan(500);
    }
    expect(tripped).toEqual([]);
  });

  it("lets loopback through when WEBHOOK_ALLOW_PRIVATE_NETWORKS is on", async () => {
    const before = v4.requests.length + v6.requests.length;
    // The custom resolver serves the guard only; with the guard off that name does not resolve.
    const urls = loopbackUrls().filter((url) => !url.includes("rebind.example.test"));
    for (const url of urls) {
      const result = await send(url, true);
      expect(result, url).toMatchObject({ success: true, statusCode: 200, error: null });
    }
    expect(v4.requests.length + v6.requests.length).toBe(before + urls.length);
  });
});

describe("a delivery to a blocked address", () => {
  let t: WebhookTestContext;
  let receiver: Receiver;

  beforeAll(async () => {
    t = await createWebhookTestContext({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it("fails the attempt with reason 'blocked address' and schedules a retry; nothing is sent", async () => {
    const merchant = await createMerchant(t.ctx);
    // Stored directly: order creation would refuse this literal; a hostname could resolve to it.
    const order = await createOrder(t.ctx, merchant, { callbackUrl: receiver.url });
    const { deliveryId } = await confirmPayment(t.ctx, order.id, order.amountExpected);
    const deliverer = createWebhookDeliverer(t.ctx, { timeoutMs: 1000 });
    try {
      const [report] = await deliverer.deliverDue();
      expect(report?.result).toMatchObject({ success: false, error: "blocked address" });
      expect(report?.outcome).toBe("retry_scheduled");
    } finally {
      await deliverer.close();
    }
    const [delivery] = await t.ctx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, deliveryId));
    expect(delivery).toMatchObject({ status: "pending", attempts: 1, lastError: "blocked address" });
    expect(receiver.requests).toHaveLength(0);
  });
});

describe("a hostname that resolves to a private address", () => {
  let t: WebhookTestContext;
  let server: Server;
  let port: number;
  let connections = 0;
  // The name passes creation (it is no IP literal); only the resolver knows it means loopback.
  const internal: Resolver = (hostname, options, callback) => {
    if (hostname === "billing.internal.example") callback(null, [{ address: "127.0.0.1", family: 4 }]);
    else lookup(hostname, options, callback);
  };

  beforeAll(async () => {
    t = await createWebhookTestContext({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" });
    server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await t.close();
  });

  it("is accepted at creation and refused at connect time without opening a socket", async () => {
    const url = `http://billing.internal.example:${port}/hooks`;
    expect(assertCallbackUrlAllowed(t.ctx.config, url)).toBeNull();
    const merchant = await createMerchant(t.ctx);
    const order = await createOrder(t.ctx, merchant, { callbackUrl: url });
    await confirmPayment(t.ctx, order.id, order.amountExpected);
    const deliverer = createWebhookDeliverer(t.ctx, { timeoutMs: 1000, resolver: internal });
    try {
      const [report] = await deliverer.deliverDue();
      expect(report?.result).toMatchObject({ success: false, statusCode: null, error: "blocked address" });
    } finally {
      await deliverer.close();
    }
    // The same listener does accept sockets: the count proves the guard, not a dead port.
    expect(connections).toBe(0);
    await new Promise<void>((resolve) => connect(port, "127.0.0.1").on("close", () => resolve()));
    expect(connections).toBe(1);
  });
});
