/**
 * Every change to money or access is an audit row (DESIGN.md 12). The walk reads every mutating
 * route (POST, PUT, PATCH, DELETE) from Fastify's own registrations, merchant, admin and public
 * alike, and makes one successful call of each: the call must append an audit row. A route is
 * either walked here or named in NOT_AUDITED with the reason it changes nothing of money or
 * access; a new route that is neither fails the walk. The devnet over HTTP makes the payments,
 * strays and balances the calls need; sweeping is on. PGlite or PostgreSQL (TEST_DATABASE_URL).
 */
import { sql } from "drizzle-orm";
import type { InjectOptions } from "fastify";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FACTOR_MAX_FAILURES, recordFactorFailure } from "../../src/admin/factor-lockout.js";
import { queryRows } from "../../src/db/query-rows.js";
import { createMerchant } from "../../src/merchants/create-merchant.js";
import { releaseAddresses } from "../../src/wallet/release-addresses.js";
import { runDuePayouts } from "../../src/payouts/send-payouts.js";
import { SOLIDIFY_AFTER } from "../chain/helpers.js";
import { uniqueIp } from "../helpers/admin.js";
import {
  cookieOf,
  enrolTotp,
  loginReply,
  OPERATOR_PASSWORD,
  operatorCookie,
  totpAt,
} from "../helpers/operators.js";
import { SoftwarePasskey } from "../helpers/software-passkey.js";
import {
  complete,
  payAndConfirm,
  QUARANTINE_S,
  startStrayTest,
  sweepAll,
  USDT,
  type StrayTest,
} from "../strays/helpers.js";

/** Routes that change nothing of money or access, each with the reason; everything else is walked. */
const NOT_AUDITED: Record<string, string> = {
  // An order is a request to be paid: no money has moved and nobody gained access. Its whole life
  // is in order_events (who, when, which transition), and the creation statement is the hot path
  // (thousands a second in one statement per batch) that one serialized audit-chain append per
  // order would throttle.
  "POST /api/v1/payments": "order creation: recorded as the order_created event, no money moved",
  // WebAuthn options: a challenge signed with the session key and stored nowhere; the passkey it
  // may lead to is added (and audited) by POST /api/v1/admin/me/passkeys, a sign-in by the login.
  "POST /api/v1/admin/auth/passkey-options": "a stateless sign-in challenge: nothing is stored",
  "POST /api/v1/admin/me/passkeys/registration-options":
    "a stateless registration challenge: nothing is stored",
};

let s: StrayTest;
let owner: string;
let ownerTotp: string;
let apiKey: string;
let merchantId: string;
const ids: Record<string, string> = {};

/** A fresh TOTP code of the owner: the clock moves past the last step used. */
function ownerCode(): string {
  s.t.clock.advance(31_000);
  return totpAt(ownerTotp, s.t.clock.now());
}

const asOwner = (
  method: InjectOptions["method"],
  url: string,
  payload?: Record<string, unknown>,
): InjectOptions => ({
  method,
  url,
  headers: { cookie: owner },
  ...(payload === undefined ? {} : { payload }),
});
const asMerchant = (
  method: InjectOptions["method"],
  url: string,
  payload?: Record<string, unknown>,
): InjectOptions => ({
  method,
  url,
  headers: { "x-api-key": apiKey },
  ...(payload === undefined ? {} : { payload }),
});

async function call(options: InjectOptions): Promise<Record<string, unknown>> {
  const reply = await s.app.inject({ remoteAddress: uniqueIp(), ...options });
  if (reply.statusCode >= 300)
    throw new Error(`${options.method} ${options.url}: ${reply.statusCode} ${reply.body}`);
  return reply.body === "" ? {} : (reply.json() as Record<string, unknown>);
}

async function paidOrder(amount: bigint): Promise<{ id: string; address: string }> {
  const created = await call(
    asMerchant("POST", "/api/v1/payments", {
      external_id: `walk-${Math.random()}`,
      amount: String(amount),
      currency: "USDT",
      callback_url: "https://shop.example.com/cb",
    }),
  );
  const order = created as { id: string; address: string };
  await payAndConfirm(s.t, order.address, amount * USDT);
  return order;
}

async function pendingOrder(): Promise<{ id: string; address: string }> {
  return (await call(
    asMerchant("POST", "/api/v1/payments", {
      external_id: `walk-${Math.random()}`,
      amount: "5",
      currency: "USDT",
      callback_url: "https://shop.example.com/cb",
    }),
  )) as { id: string; address: string };
}

async function payoutId(): Promise<string> {
  const payee = (await TronWeb.createAccount()).address.base58;
  const created = await call(
    asMerchant("POST", "/api/v1/payouts", {
      external_id: `po-${Math.random()}`,
      amount: "1",
      address: payee,
    }),
  );
  return created.id as string;
}

/** A new passkey of the owner (registration options, then the authenticator's answer); its id. */
async function ownerPasskey(name: string): Promise<string> {
  const options = await call(
    asOwner("POST", "/api/v1/admin/me/passkeys/registration-options", {
      current_password: OPERATOR_PASSWORD,
      totp_code: ownerCode(),
    }),
  );
  const authenticator = new SoftwarePasskey(s.t.ctx.config.publicBaseUrl);
  const response = authenticator.register(options as Parameters<SoftwarePasskey["register"]>[0]);
  return (await call(asOwner("POST", "/api/v1/admin/me/passkeys", { name, response }))).id as string;
}

/** One successful call per route, keyed "METHOD url" as Fastify registered it. */
const WALK: Record<string, () => Promise<InjectOptions>> = {
  "POST /api/v1/merchant/rotate-api-key": async () => {
    // A merchant of its own: the walk's other merchant calls keep their key.
    const created = await call(
      asOwner("POST", "/api/v1/admin/merchants", {
        name: "Rotating Shop",
        webhook_secret: "whsec-walk-0123456789",
      }),
    );
    return {
      method: "POST",
      url: "/api/v1/merchant/rotate-api-key",
      headers: { "x-api-key": created.api_key as string },
    };
  },
  "POST /api/v1/admin/me/passkeys": async () => {
    const options = await call(
      asOwner("POST", "/api/v1/admin/me/passkeys/registration-options", {
        current_password: OPERATOR_PASSWORD,
        totp_code: ownerCode(),
      }),
    );
    const authenticator = new SoftwarePasskey(s.t.ctx.config.publicBaseUrl);
    const response = authenticator.register(options as Parameters<SoftwarePasskey["register"]>[0]);
    return asOwner("POST", "/api/v1/admin/me/passkeys", { name: "walk key", response });
  },
  "PATCH /api/v1/admin/me/passkeys/:id": async () =>
    asOwner("PATCH", `/api/v1/admin/me/passkeys/${await ownerPasskey("to rename")}`, { name: "renamed" }),
  "DELETE /api/v1/admin/me/passkeys/:id": async () =>
    asOwner("DELETE", `/api/v1/admin/me/passkeys/${await ownerPasskey("to remove")}`, {
      totp_code: ownerCode(),
    }),
  "POST /api/v1/admin/operators/:id/unlock-second-factor": async () => {
    const [walker] = await queryRows<{ id: string }>(
      s.t.ctx.db,
      sql`SELECT id::text AS id FROM operators WHERE email = 'walker@walk.example'`,
    );
    const target = { id: walker?.id as string, label: "walker@walk.example" };
    for (let i = 0; i < FACTOR_MAX_FAILURES; i++) {
      await recordFactorFailure(s.t.ctx, target, "login", { actor: { kind: "system", label: "walk" } });
    }
    return asOwner("POST", `/api/v1/admin/operators/${target.id}/unlock-second-factor`, {
      totp_code: ownerCode(),
    });
  },
  "POST /api/v1/admin/payouts/:id/claim-link": async () => {
    const refund = await call(
      asOwner("POST", `/api/v1/admin/orders/${ids.paidOrder}/refunds`, {
        amount: "1",
        reason: "walk: claim link",
      }),
    );
    return asOwner("POST", `/api/v1/admin/payouts/${refund.id as string}/claim-link`);
  },
  "POST /api/v1/payments/:id/cancel": async () =>
    asMerchant("POST", `/api/v1/payments/${(await pendingOrder()).id}/cancel`, { reason: "walk" }),
  "POST /api/v1/payments/:id/simulate": async () =>
    asMerchant("POST", `/api/v1/payments/${(await pendingOrder()).id}/simulate`, { amount: "5" }),
  "POST /api/v1/deposit-addresses": async () =>
    asMerchant("POST", "/api/v1/deposit-addresses", {
      customer_ref: `walk-${Math.random()}`,
      callback_url: "https://shop.example.com/deposits",
    }),
  "POST /api/v1/deposit-addresses/:id/disable": async () => {
    const created = await call(
      asMerchant("POST", "/api/v1/deposit-addresses", {
        customer_ref: "walk-disable",
        callback_url: "https://shop.example.com/deposits",
      }),
    );
    ids.depositAddress = created.id as string;
    return asMerchant("POST", `/api/v1/deposit-addresses/${ids.depositAddress}/disable`);
  },
  "POST /api/v1/deposit-addresses/:id/enable": async () =>
    asMerchant("POST", `/api/v1/deposit-addresses/${ids.depositAddress}/enable`),
  "POST /api/v1/deposit-addresses/:id/simulate": async () =>
    asMerchant("POST", `/api/v1/deposit-addresses/${ids.depositAddress}/simulate`, { amount: "2" }),
  "POST /api/v1/payouts": async () =>
    asMerchant("POST", "/api/v1/payouts", {
      external_id: "walk-payout",
      amount: "1",
      address: (await TronWeb.createAccount()).address.base58,
    }),
  "POST /api/v1/payments/:id/refunds": async () =>
    asMerchant("POST", `/api/v1/payments/${ids.paidOrder}/refunds`, { amount: "1" }),
  "POST /api/v1/refund-claims/:token": async () => {
    const refund = await call(
      asMerchant("POST", `/api/v1/payments/${ids.paidOrder}/refunds`, { amount: "1" }),
    );
    const token = (refund.claim_url as string).split("/refund/")[1] as string;
    return {
      method: "POST",
      url: `/api/v1/refund-claims/${token}`,
      payload: { address: (await TronWeb.createAccount()).address.base58 },
    };
  },

  "POST /api/v1/admin/auth/login": async () => ({
    method: "POST",
    url: "/api/v1/admin/auth/login",
    payload: { email: "walker@walk.example", password: OPERATOR_PASSWORD },
  }),
  "POST /api/v1/admin/auth/logout": async () => ({
    method: "POST",
    url: "/api/v1/admin/auth/logout",
    headers: { cookie: await operatorCookie(s.app, "walker@walk.example") },
  }),
  "POST /api/v1/admin/auth/accept-invitation": async () => {
    const reply = await call(
      asOwner("POST", "/api/v1/admin/operators", {
        email: "invited@walk.example",
        name: "Invited",
        role: "viewer",
        totp_code: ownerCode(),
      }),
    );
    const token = (reply.invitation_url as string).split("#token=")[1] as string;
    return {
      method: "POST",
      url: "/api/v1/admin/auth/accept-invitation",
      payload: { token, password: OPERATOR_PASSWORD },
    };
  },
  "POST /api/v1/admin/merchants": async () =>
    asOwner("POST", "/api/v1/admin/merchants", {
      name: "Walk Shop Two",
      webhook_secret: "whsec-walk-two-0123",
    }),
  "PUT /api/v1/admin/merchants/:id": async () =>
    asOwner("PUT", `/api/v1/admin/merchants/${merchantId}`, { name: "Walk Shop renamed" }),
  "POST /api/v1/admin/merchants/:id/rotate-api-key": async () => {
    const other = await createMerchant(s.t.ctx, {
      name: "Rotated Shop",
      webhookSecret: "whsec-rotated-0123",
    });
    return asOwner("POST", `/api/v1/admin/merchants/${other.merchant.id}/rotate-api-key`, {
      totp_code: ownerCode(),
    });
  },
  "POST /api/v1/admin/orders/:id/retry-webhook": async () =>
    asOwner("POST", `/api/v1/admin/orders/${ids.paidOrder}/retry-webhook`, {}),
  "POST /api/v1/admin/orders/:id/simulate": async () =>
    asOwner("POST", `/api/v1/admin/orders/${(await pendingOrder()).id}/simulate`, { amount: "5" }),
  "POST /api/v1/admin/orders/:id/retry-sweep": async () => {
    const order = await paidOrder(3n);
    await s.t.ctx.db.execute(
      sql`UPDATE settlements SET status = 'failed', last_error = 'walk: a failed sweep' WHERE order_id = ${order.id}`,
    );
    return asOwner("POST", `/api/v1/admin/orders/${order.id}/retry-sweep`);
  },
  "POST /api/v1/admin/stray-transfers/:id/retry-sweep": async () => {
    await s.t.ctx.db.execute(
      sql`UPDATE settlements SET status = 'failed', last_error = 'walk: a failed sweep'
          WHERE order_id IS NULL AND address_id = (SELECT address_id FROM stray_transfers WHERE id = ${ids.strayA})`,
    );
    return asOwner("POST", `/api/v1/admin/stray-transfers/${ids.strayA}/retry-sweep`);
  },
  "POST /api/v1/admin/operators": async () =>
    asOwner("POST", "/api/v1/admin/operators", {
      email: "created@walk.example",
      name: "Created",
      role: "viewer",
      password: OPERATOR_PASSWORD,
      totp_code: ownerCode(),
    }),
  "PUT /api/v1/admin/operators/:id": async () =>
    asOwner("PUT", `/api/v1/admin/operators/${ids.support}`, { role: "viewer", totp_code: ownerCode() }),
  "POST /api/v1/admin/operators/:id/reset-2fa": async () => {
    const cookie = await operatorCookie(s.app, "enrolled@walk.example");
    await enrolTotp(s.app, cookie, () => s.t.clock.now());
    return asOwner("POST", `/api/v1/admin/operators/${ids.enrolled}/reset-2fa`, {
      totp_code: ownerCode(),
      current_password: OPERATOR_PASSWORD,
    });
  },
  "POST /api/v1/admin/me/password": async () => ({
    method: "POST",
    url: "/api/v1/admin/me/password",
    headers: { cookie: await operatorCookie(s.app, "self@walk.example") },
    payload: { current_password: OPERATOR_PASSWORD, new_password: `${OPERATOR_PASSWORD} two` },
  }),
  "POST /api/v1/admin/me/totp/setup": async () => ({
    method: "POST",
    url: "/api/v1/admin/me/totp/setup",
    headers: { cookie: (ids.selfCookie = await selfCookie()) },
    payload: { password: ids.selfPassword, current_password: ids.selfPassword },
  }),
  "POST /api/v1/admin/me/totp/confirm": async () => {
    const setup = await call({
      method: "POST",
      url: "/api/v1/admin/me/totp/setup",
      headers: { cookie: ids.selfCookie as string },
      payload: { password: ids.selfPassword, current_password: ids.selfPassword },
    });
    ids.selfTotp = setup.secret as string;
    return {
      method: "POST",
      url: "/api/v1/admin/me/totp/confirm",
      headers: { cookie: ids.selfCookie as string },
      payload: { totp_code: selfCode(), password: ids.selfPassword, current_password: ids.selfPassword },
    };
  },
  "POST /api/v1/admin/me/recovery-codes": async () => {
    // Walked after totp/disable: enrol again first.
    const cookie = ids.selfCookie as string;
    s.t.clock.advance(31_000); // past the step the disable used
    ids.selfTotp = (await enrolTotp(s.app, cookie, () => s.t.clock.now(), ids.selfPassword)).secret;
    return {
      method: "POST",
      url: "/api/v1/admin/me/recovery-codes",
      headers: { cookie },
      payload: { totp_code: selfCode(), password: ids.selfPassword, current_password: ids.selfPassword },
    };
  },
  "POST /api/v1/admin/me/totp/disable": async () => ({
    method: "POST",
    url: "/api/v1/admin/me/totp/disable",
    headers: { cookie: ids.selfCookie as string },
    payload: { totp_code: selfCode(), password: ids.selfPassword, current_password: ids.selfPassword },
  }),
  "DELETE /api/v1/admin/sessions/:id": async () => {
    await operatorCookie(s.app, "walker@walk.example");
    const [session] = await queryRows<{ id: string }>(
      s.t.ctx.db,
      sql`SELECT s.id::text AS id FROM operator_sessions s JOIN operators o ON o.id = s.operator_id
          WHERE o.email = 'walker@walk.example' AND s.revoked_at IS NULL ORDER BY s.created_at DESC LIMIT 1`,
    );
    return asOwner("DELETE", `/api/v1/admin/sessions/${session?.id}`);
  },
  "POST /api/v1/admin/payouts/:id/approve": async () =>
    asOwner("POST", `/api/v1/admin/payouts/${await payoutId()}/approve`, { totp_code: ownerCode() }),
  "POST /api/v1/admin/payouts/:id/reject": async () =>
    asOwner("POST", `/api/v1/admin/payouts/${await payoutId()}/reject`, {
      totp_code: ownerCode(),
      reason: "walk",
    }),
  "POST /api/v1/admin/payouts/:id/cancel": async () =>
    asOwner("POST", `/api/v1/admin/payouts/${await payoutId()}/cancel`, { reason: "walk" }),
  "POST /api/v1/admin/payouts/:id/retry-webhook": async () => {
    const payee = (await TronWeb.createAccount()).address.base58;
    const created = await call(
      asMerchant("POST", "/api/v1/payouts", {
        external_id: "walk-hooked",
        amount: "1",
        address: payee,
        callback_url: "https://shop.example.com/payouts",
      }),
    );
    const id = created.id as string;
    await call(asOwner("POST", `/api/v1/admin/payouts/${id}/approve`, { totp_code: ownerCode() }));
    // Sent from the hot wallet on the devnet until it completes: its payout.completed webhook is due.
    for (let round = 0; round < 12; round++) {
      await runDuePayouts(s.t.ctx);
      s.t.devnet.mine(SOLIDIFY_AFTER + 1);
      s.t.clock.advance(60_000);
      const [row] = await queryRows<{ status: string }>(
        s.t.ctx.db,
        sql`SELECT status FROM payouts WHERE id = ${id}`,
      );
      if (row?.status === "completed") break;
    }
    return asOwner("POST", `/api/v1/admin/payouts/${id}/retry-webhook`);
  },
  "POST /api/v1/admin/orders/:id/refunds": async () =>
    asOwner("POST", `/api/v1/admin/orders/${ids.paidOrder}/refunds`, { amount: "1", reason: "walk" }),
  "POST /api/v1/admin/stray-transfers/:id/refunds": async () =>
    asOwner("POST", `/api/v1/admin/stray-transfers/${ids.strayB}/refunds`, {
      reason: "walk: refund the stray",
    }),
  "POST /api/v1/admin/orders/:id/cancel": async () =>
    asOwner("POST", `/api/v1/admin/orders/${(await pendingOrder()).id}/cancel`, { reason: "walk" }),
  "POST /api/v1/admin/orders/:id/resolve": async () => {
    const order = await pendingOrder();
    await payAndConfirm(s.t, order.address, 4n * USDT); // 4 of 5: underpaid
    return asOwner("POST", `/api/v1/admin/orders/${order.id}/resolve`, { action: "accept", reason: "walk" });
  },
  "POST /api/v1/admin/orders/:id/attach-transfer": async () =>
    asOwner("POST", `/api/v1/admin/orders/${(await pendingOrder()).id}/attach-transfer`, {
      tx_hash: ids.strayCTx,
      reason: "walk: paid the old address",
    }),
  "POST /api/v1/admin/stray-transfers/:id/dismiss": async () =>
    asOwner("POST", `/api/v1/admin/stray-transfers/${ids.strayA}/dismiss`, {
      reason: "walk: a test transfer",
    }),
  "POST /api/v1/admin/deposit-addresses/:id/disable": async () =>
    asOwner("POST", `/api/v1/admin/deposit-addresses/${ids.depositAddress}/disable`, { reason: "walk" }),
  "POST /api/v1/admin/deposit-addresses/:id/enable": async () =>
    asOwner("POST", `/api/v1/admin/deposit-addresses/${ids.depositAddress}/enable`, { reason: "walk" }),
};

function selfCode(): string {
  s.t.clock.advance(31_000);
  return totpAt(ids.selfTotp as string, s.t.clock.now());
}

async function selfCookie(): Promise<string> {
  ids.selfPassword = `${OPERATOR_PASSWORD} two`;
  return cookieOf(await loginReply(s.app, { email: "self@walk.example", password: ids.selfPassword }));
}

function mutatingRoutes(): string[] {
  const routes = (s.app as unknown as { registeredRoutes: { method: string; url: string }[] })
    .registeredRoutes;
  return routes
    .filter((route) => ["POST", "PUT", "PATCH", "DELETE"].includes(route.method))
    .map((route) => `${route.method} ${route.url}`);
}

async function auditCount(): Promise<number> {
  const [row] = await queryRows<{ n: string }>(s.t.ctx.db, sql`SELECT count(*)::text AS n FROM audit_log`);
  return Number(row?.n ?? 0);
}

beforeAll(async () => {
  s = await startStrayTest();
  await s.t.devnetPost("/devnet/fund", {
    address: s.t.config.hotWalletAddress,
    usdt: "1000",
    solidify: true,
  });
  owner = s.cookie;
  ownerTotp = (await enrolTotp(s.app, owner, () => s.t.clock.now())).secret;
  const merchant = await createMerchant(s.t.ctx, {
    name: "Walk Shop",
    webhookSecret: "whsec-walk-0123456789",
  });
  apiKey = merchant.apiKey;
  merchantId = merchant.merchant.id;
  for (const [email, role] of [
    ["walker@walk.example", "admin"],
    ["support@walk.example", "support"],
    ["enrolled@walk.example", "viewer"],
    ["self@walk.example", "viewer"],
  ] as const) {
    const created = await call(
      asOwner("POST", "/api/v1/admin/operators", {
        email,
        name: email,
        role,
        password: OPERATOR_PASSWORD,
        totp_code: ownerCode(),
      }),
    );
    ids[email.split("@")[0] as string] = (created.operator as { id: string }).id;
  }
  ids.paidOrder = (await paidOrder(50n)).id;

  // Strays: an order paid, completed and swept, its address released, then paid three times more.
  const first = await paidOrder(2n);
  await complete(s.t, first.id);
  await sweepAll(s.t);
  s.t.clock.advanceSeconds(QUARANTINE_S + 1);
  await releaseAddresses(s.t.ctx);
  const txs: string[] = [];
  for (let i = 0; i < 3; i++) txs.push(await payAndConfirm(s.t, first.address, 1n * USDT));
  const strays = await queryRows<{ id: string; tx_hash: string }>(
    s.t.ctx.db,
    sql`SELECT id::text AS id, tx_hash FROM stray_transfers WHERE status = 'confirmed' ORDER BY created_at`,
  );
  expect(strays).toHaveLength(3);
  const byTx = new Map(strays.map((r) => [r.tx_hash, r.id]));
  ids.strayA = byTx.get(txs[0] as string) as string;
  ids.strayB = byTx.get(txs[1] as string) as string;
  ids.strayCTx = txs[2] as string;
}, 300_000);
afterAll(async () => {
  await s?.close();
});

describe("every mutating route", () => {
  it("is walked here or named as auditing nothing, with its reason", () => {
    const routes = mutatingRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(40);
    const unknown = routes.filter((route) => !(route in WALK) && !(route in NOT_AUDITED));
    expect(unknown, "mutating routes with no walk and no reason").toEqual([]);
    const stale = [...Object.keys(WALK), ...Object.keys(NOT_AUDITED)].filter((key) => !routes.includes(key));
    expect(stale, "walked routes that no longer exist").toEqual([]);
  });

  it("appends an audit row on a successful call", async () => {
    const unaudited: string[] = [];
    const failed: string[] = [];
    for (const route of mutatingRoutes()) {
      const walk = WALK[route];
      if (!walk) continue;
      try {
        const options = await walk();
        const before = await auditCount();
        await call(options);
        if ((await auditCount()) <= before) unaudited.push(route);
      } catch (error) {
        failed.push(`${route}: ${(error as Error).message.slice(0, 300)}`);
      }
    }
    expect(failed, "every walked call succeeds").toEqual([]);
    expect(unaudited).toEqual([]);
  }, 600_000);
});
