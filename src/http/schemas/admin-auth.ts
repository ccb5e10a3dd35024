import { z } from "zod";
import { errorReply } from "./error-reply.js";

export const loginSchema = {
  tags: ["admin"],
  summary: "Log in with the admin password; sets the admin_token cookie",
  body: z.object({ password: z.string().min(1).max(1024) }),
  response: { 200: z.object({ ok: z.literal(true) }), 400: errorReply, 401: errorReply, 429: errorReply },
};

export const logoutSchema = {
  tags: ["admin"],
  summary: "Clear the admin_token cookie",
  response: { 200: z.object({ ok: z.literal(true) }) },
};
