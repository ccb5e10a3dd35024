import { describe, expect, it } from "vitest";
import { verifyWebhook } from "../../src/index.js";
import { signWebhookBody } from "../../src/webhooks/signature.js";

// Vectors computed independently with `printf '%s' BODY | openssl dgst -sha256 -hmac SECRET`.
const VECTORS = [
  {
    secret: "whsec_test_secret_123",
    body: '{"event":"payment.confirmed","order_id":"0b6f3c1e-2f4a-4d6e-9a1b-3c5d7e9f1a2b"}',
    signature: "sha256=ac135d5b05163ed0cd6d9c587675798db0f653610377419c1181b6be7d77b1d6",
  },
  {
    secret: "key",
    body: "The quick brown fox jumps over the lazy dog",
    signature: "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8",
  },
  {
    secret: "ünïcode-secret",
    body: '{"amount":"1.500000","note":"café ☕"}',
    signature: "sha256=ada4dbb730a9f71795cd16b44cd3162c9f0e080ee85e03aa3ed3aec3f002c9ba",
  },
];

const NOW = new Date("2026-01-15T12:00:00.000Z");
const TS = String(NOW.getTime() / 1000);
const VALID = VECTORS[0] as (typeof VECTORS)[number];

describe("webhook signature", () => {
  it.each(VECTORS)("signs $body with the documented HMAC-SHA256 scheme", ({ secret, body, signature }) => {
    expect(signWebhookBody(secret, body)).toBe(signature);
    expect(signWebhookBody(secret, Buffer.from(body, "utf8"))).toBe(signature);
  });
});

describe("verifyWebhook", () => {
  it("accepts a valid signature over the raw string or Buffer and returns the parsed payload", () => {
    for (const raw of [VALID.body, Buffer.from(VALID.body)]) {
      const result = verifyWebhook(raw, { "x-signature": VALID.signature, "x-timestamp": TS }, VALID.secret, {
        now: NOW,
      });
      expect(result).toEqual({ ok: true, payload: JSON.parse(VALID.body) });
    }
  });

  it("finds headers case-insensitively and accepts a single-element array", () => {
    const result = verifyWebhook(
      VALID.body,
      { "X-Signature": [VALID.signature], "X-Timestamp": TS },
      VALID.secret,
      { now: NOW },
    );
    expect(result.ok).toBe(true);
  });

  it("rejects a tampered body, even a re-serialised equivalent one", () => {
    const tampered = VALID.body.replace("confirmed", "overpaid");
    const reserialised = JSON.stringify(JSON.parse(VALID.body), null, 1);
    for (const body of [tampered, reserialised, `${VALID.body} `]) {
      expect(
        verifyWebhook(body, { "x-signature": VALID.signature, "x-timestamp": TS }, VALID.secret, {
          now: NOW,
        }),
      ).toEqual({ ok: false, reason: "signature mismatch" });
    }
  });

  it("rejects a signature made with another secret", () => {
    expect(
      verifyWebhook(VALID.body, { "x-signature": VALID.signature, "x-timestamp": TS }, "another-secret", {
        now: NOW,
      }),
    ).toEqual({ ok: false, reason: "signature mismatch" });
  });

  it("rejects missing, duplicated and malformed signature headers", () => {
    const check = (headers: Record<string, string | string[] | undefined>) =>
      verifyWebhook(VALID.body, { "x-timestamp": TS, ...headers }, VALID.secret, { now: NOW });
    expect(check({})).toEqual({ ok: false, reason: "missing X-Signature header" });
    expect(check({ "x-signature": [VALID.signature, VALID.signature] })).toEqual({
      ok: false,
      reason: "more than one X-Signature header",
    });
    for (const bad of [
      VALID.signature.slice("sha256=".length),
      VALID.signature.toUpperCase(),
      `sha1=${VALID.signature.slice(7)}`,
      `${VALID.signature}00`,
      "sha256=",
    ]) {
      expect(check({ "x-signature": bad })).toEqual({ ok: false, reason: "malformed X-Signature header" });
    }
  });

  it("rejects a stale or future timestamp beyond the tolerance and a missing one", () => {
    const at = (seconds: number) =>
      verifyWebhook(
        VALID.body,
        { "x-signature": VALID.signature, "x-timestamp": String(NOW.getTime() / 1000 + seconds) },
        VALID.secret,
        { now: NOW },
      );
    expect(at(-300).ok).toBe(true);
    expect(at(300).ok).toBe(true);
    expect(at(-301)).toEqual({ ok: false, reason: "timestamp outside tolerance" });
    expect(at(301)).toEqual({ ok: false, reason: "timestamp outside tolerance" });
    expect(verifyWebhook(VALID.body, { "x-signature": VALID.signature }, VALID.secret, { now: NOW })).toEqual(
      {
        ok: false,
        reason: "missing X-Timestamp header",
      },
    );
    expect(
      verifyWebhook(VALID.body, { "x-signature": VALID.signature, "x-timestamp": "soon" }, VALID.secret, {
        now: NOW,
      }),
    ).toEqual({ ok: false, reason: "malformed X-Timestamp header" });
  });

  it("honours a custom tolerance and can turn the timestamp check off", () => {
    const headers = { "x-signature": VALID.signature, "x-timestamp": String(NOW.getTime() / 1000 - 3600) };
    expect(verifyWebhook(VALID.body, headers, VALID.secret, { now: NOW, toleranceSeconds: 7200 }).ok).toBe(
      true,
    );
    expect(verifyWebhook(VALID.body, headers, VALID.secret, { now: NOW, toleranceSeconds: 60 }).ok).toBe(
      false,
    );
    expect(
      verifyWebhook(VALID.body, { "x-signature": VALID.signature }, VALID.secret, { toleranceSeconds: 0 }).ok,
    ).toBe(true);
  });

  it("rejects a correctly signed body that is not a JSON object", () => {
    const body = "[1,2,3]";
    const headers = { "x-signature": signWebhookBody("s3cret-key", body), "x-timestamp": TS };
    expect(verifyWebhook(body, headers, "s3cret-key", { now: NOW })).toEqual({
      ok: false,
      reason: "body is not a JSON object",
    });
  });
});
