/**
 * GET /admin/stray-transfers: unresolved first (newest first within each group), paginated, with
 * optional filters (resolved or not, address). Served by stray_transfers_list_idx.
 */
import { sql } from "drizzle-orm";
import type { Context } from "../context.js";
import { queryRows } from "../db/query-rows.js";
import { readStrayViews, type StrayTransferView } from "./stray-view.js";

export interface StrayListQuery {
  page: number;
  limit: number;
  /** unresolved, resolved or all (default) */
  state?: "unresolved" | "resolved" | undefined;
  address?: string | undefined;
}

export interface StrayList {
  data: StrayTransferView[];
  pagination: { page: number; limit: number; total: number; total_pages: number };
}

export async function listStrayTransfers(ctx: Context, query: StrayListQuery): Promise<StrayList> {
  const conditions = [sql`true`];
  if (query.state === "unresolved") conditions.push(sql`st.resolution IS NULL`);
  if (query.state === "resolved") conditions.push(sql`st.resolution IS NOT NULL`);
  if (query.address !== undefined) conditions.push(sql`st.to_address = ${query.address}`);
  const where = sql.join(conditions, sql` AND `);
  const offset = (query.page - 1) * query.limit;
  const [data, [count]] = await Promise.all([
    readStrayViews(
      ctx,
      ctx.db,
      sql`WHERE ${where} ORDER BY (st.resolution IS NOT NULL), st.created_at DESC, st.id DESC
          LIMIT ${query.limit} OFFSET ${offset}`,
    ),
    queryRows<{ n: string }>(ctx.db, sql`SELECT count(*)::text AS n FROM stray_transfers st WHERE ${where}`),
  ]);
  const total = Number(count?.n ?? 0);
  return {
    data,
    pagination: { page: query.page, limit: query.limit, total, total_pages: Math.ceil(total / query.limit) },
  };
}

/** The 10 most recent unresolved strays: the incidents list shows them beside the order incidents. */
export async function listStrayIncidents(ctx: Context, limit = 10): Promise<StrayTransferView[]> {
  return readStrayViews(
    ctx,
    ctx.db,
    sql`WHERE st.resolution IS NULL ORDER BY (st.resolution IS NOT NULL), st.created_at DESC, st.id DESC LIMIT ${limit}`,
  );
}
