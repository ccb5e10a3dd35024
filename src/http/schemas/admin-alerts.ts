import { z } from "zod";
import { errorReply } from "./error-reply.js";

const alertView = z.object({
  id: z.string(),
  alert: z.string(),
  kind: z.enum(["condition", "event"]),
  severity: z.string(),
  state: z.enum(["firing", "resolved"]),
  text: z.string(),
  details: z.record(z.string(), z.unknown()),
  fired_at: z.string(),
  resolved_at: z.string().nullable(),
  deliveries: z.array(
    z.object({
      channel: z.string(),
      state: z.string(),
      status: z.string(),
      attempts: z.number().int(),
      last_error: z.string().nullable(),
    }),
  ),
});

export const listAlertsSchema = {
  tags: ["admin"],
  summary: "Operator alerts: conditions firing now and the 50 most recent alerts with their deliveries",
  security: [{ adminCookie: [] }],
  response: { 200: z.object({ firing: z.array(alertView), recent: z.array(alertView) }), 401: errorReply },
};
