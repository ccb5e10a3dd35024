import { createHash, timingSafeEqual } from "node:crypto";
import type { Context } from "../context.js";
import { AppError } from "../errors.js";
import { ADMIN_SESSION_SECONDS, signAdminToken } from "./admin-token.js";
import { recordLoginAttempt } from "./login-limit.js";

export interface AdminLogin {
  token: string;
  maxAgeSeconds: number;
}

/**
 * Checks the admin password under the login limiter and issues a session token. An attempt the
 * limiter refuses answers RATE_LIMITED whether or not the password was right, so a refused client
 * learns nothing about its guess.
 */
export async function loginAdmin(
  ctx: Context,
  input: { password: string; clientIp: string },
): Promise<AdminLogin> {
  // Both sides hashed to a fixed length, then compared in constant time: neither the content nor
  // the length of the real password leaks through timing.
  const success = timingSafeEqual(digest(input.password), digest(ctx.config.adminPassword));
  await ctx.db.transaction(async (tx) => {
    await recordLoginAttempt(ctx, tx, { clientIp: input.clientIp, success });
  });
  if (!success) {
    ctx.log.info({ clientIp: input.clientIp }, "admin login failed");
    throw new AppError("INVALID_PASSWORD", "wrong password");
  }
  ctx.log.info({ clientIp: input.clientIp }, "admin logged in");
  return { token: await signAdminToken(ctx), maxAgeSeconds: ADMIN_SESSION_SECONDS };
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}
