/**
 * Second factors (DESIGN.md 12) through the real app (app.inject), in one run on one database:
 *
 * 1. Sign-in with a passkey (a software P-256 authenticator; the server verifies the assertion with
 *    @simplewebauthn/server) beside sign-in with a TOTP code, interleaved, each with its argon2id
 *    password check and a fresh client address. Also the second-factor check alone: the passkey
 *    assertion's verification (challenge MAC, signature, counter compare-and-set, challenge recorded)
 *    beside a TOTP code's (decrypt, match, step compare-and-set).
 * 2. How long a lockout takes to start: from sending the 5th wrong step-up code to the 429 of the
 *    next request (which carries the right code), and the 5th wrong code's own latency (it writes
 *    the audit row and the alert) beside a wrong code that does not lock. The owner unlocks between
 *    rounds.
 *
 *   npx tsx bench/step-up.ts [--logins 200] [--verifies 1000] [--lockouts 30]
 *
 * PGlite in memory by default; BENCH_DATABASE_URL=postgres://... uses that database (empty or
 * migrated; the bench adds operators).
 */
import { parseArgs } from "node:util";
import { generateSync } from "otplib";
import { authenticationOptions, verifyPasskeyAssertion } from "../src/admin/passkeys.js";
import { consumeTotpCode } from "../src/admin/totp.js";
import { createMerchant } from "../src/merchants/create-merchant.js";
import { SoftwarePasskey } from "../test/helpers/software-passkey.js";
import { report as reportRow, startAdminApp } from "./admin-app.js";

const { values } = parseArgs({
  options: {
    logins: { type: "string", default: "200" },
    verifies: { type: "string", default: "1000" },
    lockouts: { type: "string", default: "30" },
  },
});
const LOGINS = Number(values.logins);
const VERIFIES = Number(values.verifies);
const LOCKOUTS = Number(values.lockouts);

const report = (label: string, samples: number[]) => reportRow(label, samples, 52);
const { config, ctx, app, clock, nextIp, close } = await startAdminApp("sg-bench-step-up-", {
  PUBLIC_BASE_URL: "https://pay.bench.example",
});
const cookieOf = (reply: { statusCode: number; body: string; headers: Record<string, unknown> }) => {
  if (reply.statusCode !== 200) throw new Error(`login: ${reply.statusCode} ${reply.body}`);
  const header = reply.headers["set-cookie"];
  return String(Array.isArray(header) ? header[0] : header).split(";")[0] as string;
};
const login = (payload: Record<string, unknown>) =>
  app.inject({ method: "POST", url: "/api/v1/admin/auth/login", payload, remoteAddress: nextIp() });
const post = async (cookie: string, path: string, payload: Record<string, unknown>) => {
  const reply = await app.inject({ method: "POST", url: path, headers: { cookie }, payload });
  if (reply.statusCode >= 300) throw new Error(`${path}: ${reply.statusCode} ${reply.body}`);
  return reply;
};

const owner = cookieOf(await login({ password: config.adminPassword }));
const password = "bench operator password 42";

/** An operator with TOTP (and, when asked, a passkey); returns what the bench needs of them. */
async function operator(name: string, withPasskey: boolean) {
  const email = `${name}-${Date.now()}@step-up.example`;
  const created = await post(owner, "/api/v1/admin/operators", { email, name, role: "admin", password });
  const id = created.json<{ operator: { id: string } }>().operator.id;
  const cookie = cookieOf(await login({ email, password }));
  const { secret } = (
    await post(cookie, "/api/v1/admin/me/totp/setup", { current_password: password })
  ).json<{
    secret: string;
  }>();
  const code = () => generateSync({ secret, epoch: Math.floor(clock.now().getTime() / 1000) });
  await post(cookie, "/api/v1/admin/me/totp/confirm", { totp_code: code() });
  let key: SoftwarePasskey | undefined;
  if (withPasskey) {
    clock.advance(30_000);
    const options = (
      await post(cookie, "/api/v1/admin/me/passkeys/registration-options", {
        current_password: password,
        totp_code: code(),
      })
    ).json<{ challenge: string; user: { id: string } }>();
    key = new SoftwarePasskey(config.publicBaseUrl);
    await post(cookie, "/api/v1/admin/me/passkeys", { name: "bench", response: key.register(options) });
  }
  return { id, email, cookie, code, key };
}

// 1. Sign-in: passkey vs TOTP, interleaved.
const signer = await operator("signer", true);
const passkeyLogins: number[] = [];
const totpLogins: number[] = [];
for (let i = 0; i < LOGINS + 5; i++) {
  const order = i % 2 === 0 ? (["passkey", "totp"] as const) : (["totp", "passkey"] as const);
  for (const which of order) {
    let payload: Record<string, unknown>;
    if (which === "passkey") {
      const options = await app.inject({ method: "POST", url: "/api/v1/admin/auth/passkey-options" });
      payload = { email: signer.email, password, passkey: signer.key?.assert(options.json().challenge) };
    } else {
      clock.advance(30_000);
      payload = { email: signer.email, password, totp_code: signer.code() };
    }
    const started = performance.now();
    const reply = await login(payload);
    const elapsed = performance.now() - started;
    cookieOf(reply);
    if (i >= 5) (which === "passkey" ? passkeyLogins : totpLogins).push(elapsed);
  }
}

// The second-factor check alone, interleaved.
const passkeyVerify: number[] = [];
const totpVerify: number[] = [];
for (let i = 0; i < VERIFIES + 20; i++) {
  const options = await authenticationOptions(ctx, "step_up", signer.id);
  const assertion = signer.key?.assert(options.challenge);
  let started = performance.now();
  const passkeyOk = await verifyPasskeyAssertion(ctx, ctx.db, signer.id, "step_up", assertion);
  const a = performance.now() - started;
  clock.advance(30_000);
  const code = signer.code();
  started = performance.now();
  const totpOk = await consumeTotpCode(ctx, ctx.db, signer.id, code);
  const b = performance.now() - started;
  if (!passkeyOk || !totpOk) throw new Error(`verify ${i}: passkey ${passkeyOk}, totp ${totpOk}`);
  if (i >= 20) {
    passkeyVerify.push(a);
    totpVerify.push(b);
  }
}

// 2. Lockout start: 4 wrong codes, then the 5th, then the right code (429 expected).
const guesser = await operator("guesser", false);
const merchant = await createMerchant(ctx, { name: "Bench Shop", webhookSecret: "whsec-bench-0123456789" });
const rotate = (code: string) =>
  app.inject({
    method: "POST",
    url: `/api/v1/admin/merchants/${merchant.merchant.id}/rotate-api-key`,
    headers: { cookie: guesser.cookie },
    payload: { totp_code: code },
  });
const wrong = () => (guesser.code() === "000000" ? "111111" : "000000");
const toLockout: number[] = [];
const lockingCode: number[] = [];
const plainWrongCode: number[] = [];
for (let round = 0; round < LOCKOUTS; round++) {
  clock.advance(30_000);
  for (let i = 0; i < 4; i++) {
    const started = performance.now();
    const reply = await rotate(wrong());
    plainWrongCode.push(performance.now() - started);
    if (reply.json().code !== "TOTP_INVALID") throw new Error(`wrong code ${i}: ${reply.body}`);
  }
  const fifthSent = performance.now();
  const fifth = await rotate(wrong());
  lockingCode.push(performance.now() - fifthSent);
  if (fifth.json().code !== "TOTP_INVALID") throw new Error(`5th code: ${fifth.body}`);
  const refused = await rotate(guesser.code());
  toLockout.push(performance.now() - fifthSent);
  if (refused.statusCode !== 429) throw new Error(`after the 5th: ${refused.statusCode} ${refused.body}`);
  await post(owner, `/api/v1/admin/operators/${guesser.id}/unlock-second-factor`, {});
}

console.log("");
report("login with a passkey (argon2id + assertion)", passkeyLogins);
report("login with a TOTP code (argon2id + code), baseline", totpLogins);
report("passkey assertion verification alone", passkeyVerify);
report("TOTP code check alone, baseline", totpVerify);
console.log("");
report("5th wrong code sent -> 429 answered", toLockout);
report("  the 5th wrong code (audit row + alert)", lockingCode);
report("  a wrong code that does not lock, baseline", plainWrongCode);

await close();
