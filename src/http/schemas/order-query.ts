/**
 * Query fields shared by the merchant and admin order lists (SPEC.md 4.5). Query values arrive as
 * strings; each field states what it accepts so a 400 INVALID_QUERY names the parameter.
 */
import { z } from "zod";
import { ORDER_STATUSES } from "../../orders/order-statuses.js";

export const PAGE_LIMIT_DEFAULT = 20;
export const PAGE_LIMIT_MAX = 100;

const positiveInteger = (max: number) =>
  z
    .string()
    .regex(/^[0-9]{1,9}$/, "must be an integer")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be at least 1").max(max, `must be at most ${max}`));

// ISO 8601 with a time and a zone (Z or an offset), e.g. 2026-01-15T00:00:00Z.
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

// Years 0001-9999: what every client and PostgreSQL's timestamptz agree on (PostgreSQL refuses year
// 0, and node-postgres cannot write years beyond 9999). An offset can move a bound out of range.
const EARLIEST_MS = new Date("0001-01-01T00:00:00.000Z").getTime();
const LATEST_MS = new Date("9999-12-31T23:59:59.999Z").getTime();

export const isoTimestampQuery = () =>
  z
    .string()
    .regex(ISO_TIMESTAMP, "must be an ISO 8601 timestamp such as 2026-01-15T00:00:00Z")
    .transform((value, ctx) => {
      const date = new Date(value);
      const time = date.getTime();
      if (Number.isNaN(time)) {
        ctx.addIssue({ code: "custom", message: "is not a valid date" });
        return z.NEVER;
      }
      if (time < EARLIEST_MS || time > LATEST_MS) {
        ctx.addIssue({
          code: "custom",
          message: "must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z",
        });
        return z.NEVER;
      }
      return date;
    })
    .meta({ format: "date-time" });

export const orderListQueryFields = {
  page: positiveInteger(1_000_000_000).optional().default(1),
  limit: positiveInteger(PAGE_LIMIT_MAX).optional().default(PAGE_LIMIT_DEFAULT),
  status: z.enum(ORDER_STATUSES, { error: `must be one of ${ORDER_STATUSES.join(", ")}` }).optional(),
  from: isoTimestampQuery().optional(),
  to: isoTimestampQuery().optional(),
};

/** from <= to, reported on "from". */
export function checkRange(
  value: { from?: Date | undefined; to?: Date | undefined },
  ctx: z.RefinementCtx,
): void {
  // Runs even when a bound failed its own check (zod then passes the raw string): compare only two
  // valid dates.
  const { from, to } = value as { from?: unknown; to?: unknown };
  if (from instanceof Date && to instanceof Date && from.getTime() > to.getTime()) {
    ctx.addIssue({ code: "custom", path: ["from"], message: "must not be later than to" });
  }
}

export const paginationReply = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  total_pages: z.number().int(),
});
