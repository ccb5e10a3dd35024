import { createContext, useContext } from "react";
import type { Me } from "../api-types.js";

/** The signed-in operator; pages hide what the role may not do (the server refuses it anyway). */
export const MeContext = createContext<Me | null>(null);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error("useMe outside the signed-in dashboard");
  return me;
}

export function useCan(): (permission: string) => boolean {
  const me = useMe();
  return (permission) => me.permissions.includes(permission);
}

/** Asks an operator with 2FA for a fresh code before a step-up action; undefined = cancelled. */
export function askTotpCode(me: Me, action: string): string | null | undefined {
  if (!me.totp_enabled) return null;
  const code = window.prompt(`${action}: enter a fresh code from your authenticator app`);
  return code === null ? undefined : code.trim();
}
