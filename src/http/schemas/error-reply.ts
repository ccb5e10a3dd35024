import { z } from "zod";

/** The one error shape of the service (SPEC.md 7), for the OpenAPI document. */
export const errorReply = z.object({ error: z.string(), code: z.string() });
