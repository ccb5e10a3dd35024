import type { ReactNode } from "react";
import { formatTime } from "../format.js";

interface TimelineEvent {
  id: string;
  created_at: string;
  event_type: string;
  payload: Record<string, unknown>;
}

/** A record's events, oldest first: time, type, what `describe` says of it, and the payload. */
export function EventTimeline<E extends TimelineEvent>({
  events,
  testId,
  describe,
  hideEmptyPayload = false,
}: {
  events: E[];
  testId: string;
  describe?: (event: E) => ReactNode;
  hideEmptyPayload?: boolean;
}) {
  return (
    <section className="panel wide">
      <h2>Events</h2>
      <ol className="timeline" data-testid={testId}>
        {events.map((event) => (
          <li key={event.id}>
            <span className="muted">{formatTime(event.created_at)}</span> <strong>{event.event_type}</strong>{" "}
            {describe && <>{describe(event)} </>}
            {(!hideEmptyPayload || Object.keys(event.payload).length > 0) && (
              <code className="payload">{JSON.stringify(event.payload)}</code>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
