import type { ReactNode } from "react";
import { describePayload } from "../describe.js";
import { eventLabel } from "../labels.js";
import { When } from "./When.js";

interface TimelineEvent {
  id: string;
  created_at: string;
  event_type: string;
  payload: Record<string, unknown>;
}

/** A record's events, oldest first: what happened in words, when, and its details. */
export function EventTimeline<E extends TimelineEvent>({
  events,
  testId,
  describe,
}: {
  events: E[];
  testId: string;
  describe?: (event: E) => ReactNode;
  /** Kept for callers; an empty payload never shows. */
  hideEmptyPayload?: boolean;
}) {
  return (
    <section className="panel wide">
      <h2>Timeline</h2>
      {events.length === 0 ? (
        <p className="empty">Nothing has happened yet.</p>
      ) : (
        <ol className="timeline" data-testid={testId}>
          {events.map((event) => {
            const details = describePayload(event.payload);
            return (
              <li key={event.id} data-event={event.event_type}>
                <span className="event-title">{eventLabel(event.event_type)}</span>
                <span className="event-time">
                  <When at={event.created_at} />
                </span>
                {describe && <span className="event-detail">{describe(event)}</span>}
                {details && <span className="event-detail">{details}</span>}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
