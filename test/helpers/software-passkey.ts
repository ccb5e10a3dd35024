/**
 * A software WebAuthn authenticator for API tests and benches: a P-256 key made with node:crypto,
 * attestation "none", a signature counter that grows with every assertion. It builds exactly the
 * bytes a browser and a security key would (clientDataJSON, authenticator data, COSE key in CBOR,
 * DER ECDSA signature), independently of the server's library. The real-browser test uses Chromium's
 * own virtual authenticator instead.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { cookieOf, loginReply } from "./operators.js";

function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}

/** A minimal CBOR encoder: unsigned and negative ints, byte and text strings, maps. */
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;
function cborHead(major: number, value: number): Buffer {
  if (value < 24) return Buffer.from([(major << 5) | value]);
  if (value < 256) return Buffer.from([(major << 5) | 24, value]);
  const b = Buffer.alloc(3);
  b[0] = (major << 5) | 25;
  b.writeUInt16BE(value, 1);
  return b;
}
function cbor(value: Cbor): Buffer {
  if (typeof value === "number") return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), Buffer.from(value)]);
  const parts = [cborHead(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

export class SoftwarePasskey {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y: string };
  private counter = 0;
  private userHandle: string | undefined;

  constructor(
    readonly origin: string,
    readonly rpId: string = new URL(origin).hostname,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: "jwk" });
    this.publicJwk = { x: jwk.x as string, y: jwk.y as string };
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  private clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }

  private authData(flags: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(this.counter);
    const rpHash = createHash("sha256").update(this.rpId).digest();
    return Buffer.concat([rpHash, Buffer.from([flags]), count, attested ?? Buffer.alloc(0)]);
  }

  /** The registration response for creation options (as startRegistration returns it). */
  register(options: { challenge: string; user: { id: string } }) {
    this.userHandle = options.user.id;
    const cose = cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(this.publicJwk.x, "base64url")],
        [-3, Buffer.from(this.publicJwk.y, "base64url")],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, cose]);
    // UP | UV | AT
    const authData = this.authData(0x45, attested);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      response: {
        clientDataJSON: b64url(this.clientData("webauthn.create", options.challenge)),
        attestationObject: b64url(attestationObject),
        transports: ["internal" as const],
      },
      clientExtensionResults: {},
    };
  }

  /** An assertion over `challenge` (as startAuthentication returns it); the counter moves on. */
  assert(challenge: string, overrides: { origin?: string } = {}) {
    this.counter += 1;
    const authData = this.authData(0x05);
    const clientData = Buffer.from(
      JSON.stringify({
        type: "webauthn.get",
        challenge,
        origin: overrides.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const signature = sign(
      "sha256",
      Buffer.concat([authData, createHash("sha256").update(clientData).digest()]),
      this.privateKey,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.userHandle === undefined ? {} : { userHandle: this.userHandle }),
      },
      clientExtensionResults: {},
    };
  }
}

/**
 * Registers a new software passkey for the cookie's operator through the API (password, and the
 * given factor when the operator already has one). Returns the authenticator.
 */
export async function registerSoftwarePasskey(
  app: FastifyInstance,
  cookie: string,
  origin: string,
  proof: { currentPassword: string; totpCode?: string; passkey?: unknown },
  name = "test key",
): Promise<SoftwarePasskey> {
  const options = await app.inject({
    method: "POST",
    url: "/api/v1/admin/me/passkeys/registration-options",
    headers: { cookie },
    payload: {
      current_password: proof.currentPassword,
      ...(proof.totpCode === undefined ? {} : { totp_code: proof.totpCode }),
      ...(proof.passkey === undefined ? {} : { passkey: proof.passkey }),
    },
  });
  if (options.statusCode !== 200) throw new Error(`passkey options: ${options.statusCode} ${options.body}`);
  const authenticator = new SoftwarePasskey(origin);
  const added = await app.inject({
    method: "POST",
    url: "/api/v1/admin/me/passkeys",
    headers: { cookie },
    payload: { name, response: authenticator.register(options.json()) },
  });
  if (added.statusCode !== 201) throw new Error(`passkey add: ${added.statusCode} ${added.body}`);
  return authenticator;
}

/** A fresh step-up assertion of `authenticator` for the cookie's operator. */
export async function stepUpPasskey(
  app: FastifyInstance,
  cookie: string,
  authenticator: SoftwarePasskey,
): Promise<ReturnType<SoftwarePasskey["assert"]>> {
  const options = await app.inject({
    method: "GET",
    url: "/api/v1/admin/me/passkeys/challenge",
    headers: { cookie },
  });
  if (options.statusCode !== 200) throw new Error(`step-up challenge: ${options.statusCode} ${options.body}`);
  return authenticator.assert(options.json<{ challenge: string }>().challenge);
}

/**
 * Second factors for approvals in tests that act as several operators: `enrol` registers a software
 * passkey for a cookie's operator, `factor` returns the step-up body fields for that cookie (none for
 * an operator without one, so the server's own refusal shows), `login` signs the operator in again
 * (password plus a sign-in assertion of the same passkey, as an enrolled operator must) and returns
 * the new cookie, which `factor` then knows.
 */
export function approvalFactors(app: FastifyInstance, origin: string) {
  const keys = new Map<string, SoftwarePasskey>();
  return {
    async enrol(cookie: string, currentPassword: string): Promise<void> {
      keys.set(cookie, await registerSoftwarePasskey(app, cookie, origin, { currentPassword }));
    },
    async factor(cookie: string): Promise<Record<string, unknown>> {
      const key = keys.get(cookie);
      return key === undefined ? {} : { passkey: await stepUpPasskey(app, cookie, key) };
    },
    /** `credentials` is `{password}` for the built-in owner, `{email, password}` for an operator. */
    async login(cookie: string, credentials: { password: string; email?: string }): Promise<string> {
      const key = keys.get(cookie);
      if (key === undefined) throw new Error("login: no passkey enrolled for this cookie");
      const options = await app.inject({ method: "POST", url: "/api/v1/admin/auth/passkey-options" });
      if (options.statusCode !== 200)
        throw new Error(`sign-in challenge: ${options.statusCode} ${options.body}`);
      const fresh = cookieOf(
        await loginReply(app, {
          ...credentials,
          passkey: key.assert(options.json<{ challenge: string }>().challenge),
        }),
      );
      keys.set(fresh, key);
      return fresh;
    },
  };
}
