import { useState } from "react";
import type { AuditList } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime } from "../format.js";
import { Field } from "../ui/Field.js";
import { useApi } from "../useApi.js";

const FILTERS = ["actor", "action", "target_type", "target_id"] as const;

/** The audit log with filters (actor, action, target, time) and pages. */
export function AuditPage() {
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [applied, setApplied] = useState<Record<string, string>>({});
  const [page, setPage] = useState(1);
  const query = new URLSearchParams({ page: String(page), limit: "50" });
  for (const [key, value] of Object.entries(applied)) if (value) query.set(key, value);
  const rows = useApi(() => api.get<AuditList>(`/audit?${query.toString()}`), query.toString());
  return (
    <>
      <h1>Audit log</h1>
      <form
        className="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(1);
          setApplied(draft);
        }}
      >
        {FILTERS.map((name) => (
          <Field
            key={name}
            label={name.replace("_", " ")}
            value={draft[name] ?? ""}
            onChange={(value) => setDraft({ ...draft, [name]: value })}
            testId={`audit-${name}`}
          />
        ))}
        {(["from", "to"] as const).map((name) => (
          <Field
            key={name}
            label={`${name} (ISO time)`}
            value={draft[name] ?? ""}
            placeholder="2026-01-15T00:00:00Z"
            onChange={(value) => setDraft({ ...draft, [name]: value })}
            testId={`audit-${name}`}
          />
        ))}
        <button type="submit" data-testid="audit-filter">
          Filter
        </button>
      </form>
      {rows.state === "ok" ? (
        <>
          <table data-testid="audit">
            <thead>
              <tr>
                <th>#</th>
                <th>Time</th>
                <th>Actor</th>
                <th>Action</th>
                <th>Target</th>
                <th>Change</th>
                <th>Address</th>
              </tr>
            </thead>
            <tbody>
              {rows.data.data.map((row) => (
                <tr key={row.seq} data-testid="audit-row">
                  <td>{row.seq}</td>
                  <td>{formatTime(row.created_at)}</td>
                  <td>{row.actor.label}</td>
                  <td className="mono">{row.action}</td>
                  <td className="mono">
                    {row.target_type ? `${row.target_type} ${row.target_id ?? ""}` : ""}
                  </td>
                  <td className="mono">
                    {row.before && `${JSON.stringify(row.before)} → `}
                    {row.after && JSON.stringify(row.after)}
                    {row.reason && ` (${row.reason})`}
                  </td>
                  <td className="mono">{row.ip ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p>
            Page {rows.data.pagination.page} of {Math.max(1, rows.data.pagination.total_pages)} (
            {rows.data.pagination.total} rows){" "}
            <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              Newer
            </button>{" "}
            <button
              type="button"
              disabled={page >= rows.data.pagination.total_pages}
              onClick={() => setPage(page + 1)}
              data-testid="audit-older"
            >
              Older
            </button>
          </p>
        </>
      ) : (
        <p>{rows.state === "error" ? rows.message : "Loading…"}</p>
      )}
    </>
  );
}
