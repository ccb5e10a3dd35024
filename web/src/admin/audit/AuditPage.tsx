import { useState } from "react";
import type { AuditList } from "../../api-types.js";
import { api } from "../api.js";
import { formatTime, shortId } from "../format.js";
import { actorLabel, auditActionLabel, humanize } from "../labels.js";
import { describeChange } from "../describe.js";
import { Field } from "../ui/Field.js";
import { useApi } from "../useApi.js";

const FILTERS = ["actor", "action", "target_type", "target_id"] as const;
const FILTER_LABELS: Record<(typeof FILTERS)[number], string> = {
  actor: "Actor",
  action: "Action",
  target_type: "Target kind",
  target_id: "Target ID",
};

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
        className="filters inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(1);
          setApplied(draft);
        }}
      >
        {FILTERS.map((name) => (
          <Field
            key={name}
            label={FILTER_LABELS[name]}
            value={draft[name] ?? ""}
            onChange={(value) => setDraft({ ...draft, [name]: value })}
            testId={`audit-${name}`}
          />
        ))}
        {(["from", "to"] as const).map((name) => (
          <Field
            key={name}
            label={name === "from" ? "From (ISO time)" : "To (ISO time)"}
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
          <div className="table-scroll" tabIndex={0}>
            <table data-testid="audit">
              <thead>
                <tr>
                  <th>#</th>
                  <th>Time</th>
                  <th>Actor</th>
                  <th>Action</th>
                  <th>Target</th>
                  <th>Change</th>
                  <th>IP address</th>
                </tr>
              </thead>
              <tbody>
                {rows.data.data.map((row) => (
                  <tr key={row.seq} data-testid="audit-row">
                    <td>{row.seq}</td>
                    <td>{formatTime(row.created_at)}</td>
                    <td>{actorLabel(row.actor.label)}</td>
                    <td title={row.action} data-action={row.action}>
                      {auditActionLabel(row.action)}
                    </td>
                    <td>
                      {row.target_type
                        ? `${humanize(row.target_type)} ${row.target_id ? shortId(row.target_id) : ""}`
                        : ""}
                    </td>
                    <td className="change">
                      {describeChange(row.before, row.after)}
                      {row.reason && ` (reason: ${row.reason})`}
                    </td>
                    <td className="mono nowrap">{row.ip ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
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
