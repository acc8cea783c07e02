// Inbox: what needs attention in every pipeline of the workspace, a section per pipeline with its
// counts, each item with the action that resolves it (open the draft, draft from the post), and
// what no pipeline inbox holds: publishes that failed and accounts whose credential stopped
// working. Each pipeline's inbox comes a page at a time ("Load more" follows its next_cursor), so
// every draft is reachable however many wait.
import { useState } from 'preact/hooks';
import { unwrap, type Schemas } from '../../../clients/typescript/src/browser.js';
import { allPipelines, Empty, ErrorNote, fmtDate, newKey, useAction, useLoad, UserText, type Client } from '../ui.js';

type Item = Schemas['InboxItem'];
type Pipeline = Schemas['Pipeline'];
interface Section {
  pipeline: Pipeline;
  items: Item[];
  next: string | null;
  counts: Schemas['InboxCounts'];
}
const inboxPage = (client: Client, id: string, cursor?: string) =>
  unwrap(client.GET('/api/agent/v1/pipelines/{id}/inbox', { params: { path: { id }, query: cursor ? { cursor, limit: 100 } : { limit: 100 } } }));

const KIND: Record<Schemas['InboxItem']['kind'], string> = {
  draft_in_review: 'Draft to review',
  draft_ready: 'Approved, to schedule',
  source_without_artifact: 'Post without a draft',
  flagged_anomaly: 'Needs attention',
  scheduled_publish: 'Scheduled',
};

export function InboxView(props: { client: Client }) {
  const { client } = props;
  const [busy, setBusy] = useState<string | null>(null);
  // The pages loaded after the first, per pipeline (cleared when the inbox is loaded again).
  const [more, setMore] = useState<Record<string, { items: Item[]; next: string | null }>>({});
  const action = useAction();
  const load = useLoad(async () => {
    setMore({});
    const pipelines = await allPipelines(client);
    const inboxes = await Promise.all(pipelines.map((p) => inboxPage(client, p.id)));
    const sections: Section[] = inboxes.map((inbox, i) => ({ pipeline: pipelines[i]!, items: inbox.data, next: inbox.next_cursor, counts: inbox.counts }));
    // What the pipelines' inboxes do not hold: publishes that failed, accounts that stopped working.
    const failed = await client.paginate('/api/agent/v1/artifacts', { params: { query: { state: ['publish_failed'], limit: 100 } } }).toArray({ limit: 100 });
    const dead = (await client.paginate('/api/agent/v1/accounts', { params: { query: { limit: 100 } } }).toArray({ limit: 1000 })).filter(
      (a) => a.status === 'dead',
    );
    return { sections, failed, dead, pipelines: pipelines.length };
  }, []);

  const loadMore = (section: Section) =>
    action.run(async () => {
      const id = section.pipeline.id;
      setBusy(`more:${id}`);
      const cursor = more[id]?.next ?? section.next;
      if (!cursor) return;
      const page = await inboxPage(client, id, cursor);
      setMore((m) => ({ ...m, [id]: { items: [...(m[id]?.items ?? []), ...page.data], next: page.next_cursor } }));
    });
  const sections = (load.data?.sections ?? [])
    .map((s) => ({ ...s, items: [...s.items, ...(more[s.pipeline.id]?.items ?? [])], next: more[s.pipeline.id] ? more[s.pipeline.id]!.next : s.next }))
    .filter((s) => s.items.length > 0);
  const waiting = sections.reduce((n, s) => n + s.counts.by_state.review + s.counts.by_state.ready, 0);

  const draftFrom = (postId: string) =>
    action.run(async () => {
      setBusy(postId);
      const r = await unwrap(client.POST('/api/agent/v1/posts/{id}/draft', { params: { path: { id: postId } }, body: { idempotency_key: newKey('draft') } }));
      location.hash = `#/drafts/${r.artifact_id}`;
    });

  return (
    <section aria-labelledby="inbox-title">
      <h1 id="inbox-title">Inbox</h1>
      <ErrorNote error={load.error ?? action.error} />
      {load.loading && !load.data ? <p class="loading">Loading…</p> : null}
      {load.data && sections.length + load.data.failed.length + load.data.dead.length === 0 ? (
        <Empty>Nothing needs attention. {load.data.pipelines === 0 ? 'Import an export under Imports to start.' : ''}</Empty>
      ) : null}
      {sections.length ? (
        <p class="counts">
          {waiting} draft{waiting === 1 ? '' : 's'} waiting in {sections.length} pipeline{sections.length === 1 ? '' : 's'}
        </p>
      ) : null}
      <ul class="cards">
        {load.data?.dead.map((a) => (
          <li key={a.id} class="card kind-dead-account">
            <p class="meta">
              <span class="badge">Account not working</span> {a.platform}
            </p>
            <p>
              <UserText text={a.handle} />: the platform refuses its credential, so nothing can be published or read with it.
            </p>
            <p class="actions">
              <a href="#/accounts">Rotate its credential</a>
            </p>
          </li>
        ))}
        {load.data?.failed.map((a) => (
          <li key={a.id} class="card kind-publish-failed">
            <p class="meta">
              <span class="badge">Publish failed</span> {fmtDate(a.updated_at)}
            </p>
            <UserText text={a.publish_error?.message ?? 'Publishing failed.'} block />
            <p class="actions">
              <a href={`#/drafts/${a.id}`}>Open the draft to retry or edit it</a>
            </p>
          </li>
        ))}
      </ul>
      {sections.map((section) => (
        <section key={section.pipeline.id} class="inbox-pipeline" aria-labelledby={`inbox-${section.pipeline.id}`}>
          <h2 id={`inbox-${section.pipeline.id}`}>
            <UserText text={section.pipeline.handle} />
          </h2>
          <Counts counts={section.counts} />
          <ul class="cards">
            {section.items.map((item) => (
              <li key={item.id} class={`card kind-${item.kind}`}>
                <p class="meta">
                  <span class="badge">{KIND[item.kind]}</span> <UserText text={section.pipeline.handle} /> · {fmtDate(item.created_at)}
                </p>
                <UserText text={item.title} block />
                {item.anomaly ? <UserText text={item.anomaly.message} block /> : null}
                <p class="actions">
                  {item.artifact_id ? <a href={`#/drafts/${item.artifact_id}`}>Open the draft</a> : null}
                  {item.kind === 'source_without_artifact' && item.post_id ? (
                    <button type="button" disabled={action.busy && busy === item.post_id} onClick={() => void draftFrom(item.post_id!)}>
                      Draft from this post
                    </button>
                  ) : null}
                </p>
              </li>
            ))}
          </ul>
          {section.next ? (
            <p class="actions">
              <button type="button" disabled={action.busy && busy === `more:${section.pipeline.id}`} onClick={() => void loadMore(section)}>
                Load more ({section.items.length} of {section.counts.total} shown)
              </button>
            </p>
          ) : null}
        </section>
      ))}
    </section>
  );
}

/** A pipeline's counts over every page: drafts by state, and where the waiting ones go. */
function Counts(props: { counts: Schemas['InboxCounts'] }) {
  const { by_state: st, by_destination: dest } = props.counts;
  return (
    <p class="counts">
      {st.review} to review · {st.ready} approved · {st.scheduled} scheduled · {st.publish_failed} failed
      {dest.length ? <> · to {dest.map((d) => `${d.platform}${d.handle ? ` ${d.handle}` : ''} (${d.waiting})`).join(', ')}</> : null}
    </p>
  );
}
