/**
 * Passkeys in the dashboard (DESIGN.md 12) through @simplewebauthn/browser: the server's options go
 * to navigator.credentials, the authenticator's answer goes back as `passkey`.
 */
import { startAuthentication, startRegistration } from "@simplewebauthn/browser";
import type { Me } from "../api-types.js";
import { api } from "./api.js";
import { askTotpCode } from "./me.js";

type Options = Parameters<typeof startAuthentication>[0]["optionsJSON"];
type CreationOptions = Parameters<typeof startRegistration>[0]["optionsJSON"];

/** An assertion over a sign-in challenge (the login sends it with the password). */
export async function signInPasskey(): Promise<unknown> {
  const optionsJSON = await api.post<Options>("/auth/passkey-options");
  return startAuthentication({ optionsJSON });
}

/** An assertion over a step-up challenge of the signed-in operator. */
export async function stepUpPasskey(): Promise<unknown> {
  const optionsJSON = await api.get<Options>("/me/passkeys/challenge");
  return startAuthentication({ optionsJSON });
}

/** Registers a new passkey: the proof (password and, where enrolled, a factor) opens the ceremony. */
export async function registerPasskey(name: string, proof: Record<string, unknown>): Promise<void> {
  const optionsJSON = await api.post<CreationOptions>("/me/passkeys/registration-options", proof);
  const response = await startRegistration({ optionsJSON });
  await api.post("/me/passkeys", { name, response });
}

/**
 * The second factor of a step-up action: a passkey when the operator has one, else a prompted TOTP
 * code; {} for an operator without any; undefined when they cancelled the prompt.
 */
export async function askStepUp(me: Me, action: string): Promise<Record<string, unknown> | undefined> {
  if (me.passkeys > 0) return { passkey: await stepUpPasskey() };
  const code = askTotpCode(me, action);
  if (code === undefined) return undefined;
  return code ? { totp_code: code } : {};
}
