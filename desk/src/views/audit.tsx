// The record of who did what (GET /audit-events), newest first, a page at a time: the Activity
// view shows the workspace's, the draft page an artifact's history (`subjectId`). Every name and
// summary is text, never markup.
import { useEffect, useState } from 'preact/hooks';
import { unwrap, type Schemas } from '../../../clients/typescript/src/browser.js';
import { ErrorNote, Empty, fmtDate, useAction, type Client } from '../ui.js';

type Audit = Schemas['AuditEvent'];

/** Where the desk shows a record's subject, when it has a page for it. */
function hrefOf(s: Audit['subject']): string | null {
  if (!s) return null;
  if (s.type === 'artifact') return `#/drafts/${encodeURIComponent(s.id)}`;
  if (s.type === 'pipeline') return `#/sources/${encodeURIComponent(s.id)}`;
  if (s.type === 'account' || s.type === 'authorization') return '#/accounts';
  if (s.type === 'import') return '#/imports';
  return null;
}

const actorOf = (a: Audit['actor']) =>
  a.kind === 'agent' ? a.name : a.kind === 'person' ? `${a.name} (person)` : a.kind === 'operator' ? a.name : 'the service';

/** A page of the record (of `subjectId` only, when given), with a button for the next; reloaded when `version` changes. */
export function AuditList(props: { client: Client; subjectId?: string; limit?: number; version?: string }) {
  const { client, subjectId, limit = 20 } = props;
  const [items, setItems] = useState<Audit[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const action = useAction();
  const page = async (cursor?: string) => {
    const r = await unwrap(client.GET('/api/agent/v1/audit-events', { params: { query: { limit, subject_id: subjectId, cursor } } }));
    setItems((list) => (cursor ? [...list, ...r.data] : r.data));
    setNext(r.next_cursor);
    setLoaded(true);
  };
  useEffect(() => {
    void action.run(() => page());
  }, [client, subjectId, props.version]);
  return (
    <div class="audit">
      <ErrorNote error={action.error} />
      {loaded && items.length === 0 ? <Empty>Nothing recorded yet.</Empty> : null}
      <ol class="audit-events">
        {items.map((e) => {
          const href = subjectId ? null : hrefOf(e.subject);
          return (
            <li key={e.id} data-audit-id={e.id} data-action={e.action}>
              <time dateTime={e.created_at}>{fmtDate(e.created_at)}</time> · <strong class="actor">{actorOf(e.actor)}</strong> ·{' '}
              <code class="audit-action">{e.action}</code> {e.summary}
              {href ? (
                <>
                  {' '}
                  <a href={href}>open</a>
                </>
              ) : null}
            </li>
          );
        })}
      </ol>
      {next ? (
        <button type="button" disabled={action.busy} onClick={() => void action.run(() => page(next))}>
          Older
        </button>
      ) : null}
    </div>
  );
}
