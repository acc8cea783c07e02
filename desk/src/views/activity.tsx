// Activity: the record of who did what (views/audit.tsx: who approved, published, connected,
// made or revoked a token, newest first), then the workspace's event stream, live. The browser's EventSource cannot send an
// Authorization header, so the typed client's followEvents (fetch streaming + eventsource-parser)
// reads it; the last event id is kept in the tab's sessionStorage, so that a reload resumes
// after it (`Last-Event-ID`) and misses nothing.
import { useEffect, useState } from 'preact/hooks';
import { followEvents, type EventEnvelope } from '../../../clients/typescript/src/browser.js';
import { describeError, Empty, fmtDate, type Client } from '../ui.js';
import { AuditList } from './audit.js';

const LAST_ID = 'cpa.desk.lastEventId';
const KEEP = 200;

const linkOf = (e: EventEnvelope): string | null => {
  const d = e.data as Record<string, unknown>;
  // Events stored before drafting events carried artifact_id name the draft riff_id or brief_id.
  const id = [d.artifact_id, d.riff_id, d.brief_id].find((v) => typeof v === 'string');
  return id ? `#/drafts/${id as string}` : null;
};

export function ActivityView(props: { client: Client }) {
  const [events, setEvents] = useState<EventEnvelope[]>([]);
  const [status, setStatus] = useState('Connecting…');
  useEffect(() => {
    const abort = new AbortController();
    void (async () => {
      try {
        for await (const e of followEvents(props.client, {
          signal: abort.signal,
          lastEventId: sessionStorage.getItem(LAST_ID) ?? undefined,
          onOpen: ({ lastEventId }) => setStatus(lastEventId ? 'Live (resumed after the last event seen in this tab)' : 'Live'),
          onReconnect: ({ delayMs }) => setStatus(`Connection lost; reconnecting in ${Math.round(delayMs / 1000)} s`),
        })) {
          sessionStorage.setItem(LAST_ID, e.id);
          setEvents((list) => [e, ...list].slice(0, KEEP));
        }
      } catch (err) {
        if (!abort.signal.aborted) setStatus(describeError(err));
      }
    })();
    return () => abort.abort();
  }, [props.client]);
  return (
    <section aria-labelledby="activity-title">
      <h1 id="activity-title">Activity</h1>
      <h2>Who did what</h2>
      <AuditList client={props.client} version={events[0]?.id} />
      <h2>Live events</h2>
      <p role="status" class="muted">
        {status}
      </p>
      {events.length === 0 ? <Empty>No event since this page opened. Events appear here as they happen.</Empty> : null}
      <ol class="events" aria-live="polite">
        {events.map((e) => {
          const href = linkOf(e);
          return (
            <li key={e.id} data-event-id={e.id}>
              <span class="badge">{e.type}</span> {fmtDate(e.created_at)} {href ? <a href={href}>open the draft</a> : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
