import { formatDate, relativeTime } from "../../dates.js";

/** A moment in the one date format, with the relative time beside it ("3 min ago"). */
export function When({ at, relative = true }: { at: string | null | undefined; relative?: boolean }) {
  if (!at) return <>—</>;
  return (
    <time dateTime={at} title={at}>
      {formatDate(at)}
      {relative && <span className="muted"> · {relativeTime(at, Date.now())}</span>}
    </time>
  );
}
