/**
 * Operator passwords: argon2id through @node-rs/argon2 (the Rust argon2 crate, prebuilt per platform
 * and pinned in package-lock.json), with OWASP's minimum profile: 19 MiB, 2 passes, 1 lane. Never
 * hand-rolled. A PHC string carries its own parameters, so raising them later leaves old hashes valid.
 */
import { hash, verify, type Options } from "@node-rs/argon2";
import { AppError } from "../errors.js";

// algorithm 2 is Argon2id (the package's const enum cannot be imported under verbatimModuleSyntax).
const PARAMS: Options = {
  algorithm: 2 as NonNullable<Options["algorithm"]>,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1024;

/** A hash of nothing anyone knows: verified against when the account does not exist, for even timing. */
let dummyHash: Promise<string> | undefined;

export async function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    dummyHash ??= hash("stablegate: no such account", PARAMS);
    await verify(await dummyHash, password);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** INVALID_BODY unless the new password is long enough (length over composition rules, NIST 800-63B). */
export function assertPasswordStrength(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new AppError(
      "INVALID_BODY",
      `password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters long`,
    );
  }
}
