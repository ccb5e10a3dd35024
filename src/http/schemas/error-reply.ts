import { z } from "zod";
import { STATUS_BY_CODE, type ErrorCode } from "../../errors.js";

const CODES = Object.keys(STATUS_BY_CODE) as [ErrorCode, ...ErrorCode[]];

/**
 * The one error shape of the service (SPEC.md 7), for the OpenAPI document. `code` lists every code
 * of the one code table (src/errors.ts), so the document names them all.
 */
export const errorReply = z.object({
  error: z.string().meta({ description: "a human-readable message; never internals or secrets" }),
  code: z.enum(CODES).meta({
    description: `machine-readable code; its HTTP status is fixed: ${CODES.map((code) => `${code} ${STATUS_BY_CODE[code]}`).join(", ")}`,
  }),
});
