// Inbox: what needs attention in every pipeline of the workspace, each item with the action that
// resolves it (open the draft, draft from the post), and what no pipeline inbox holds: publishes
// that failed and accounts whose credential stopped working.
import { useState } from 'preact/hooks';
import { unwrap, type Schemas } from '../../../clients/typescript/src/browser.js';
import { allPipelines, Empty, ErrorNote, fmtDate, newKey, useAction, useLoad, UserText, type Client } from '../ui.js';

type Item = Schemas['InboxItem'] & { pipeline: Schemas['Pipeline'] };

const KIND: Record<Schemas['InboxItem']['kind'], string> = {
  draft_in_review: 'Draft to review',
  source_without_artifact: 'Post without a draft',
  flagged_anomaly: 'Needs attention',
  scheduled_publish: 'Scheduled',
};

export function InboxView(props: { client: Client }) {
  const { client } = props;
  const [busy, setBusy] = useState<string | null>(null);
  const action = useAction();
  const load = useLoad(async () => {
    const pipelines = await allPipelines(client);
    const inboxes = await Promise.all(pipelines.map((p) => unwrap(client.GET('/api/agent/v1/pipelines/{id}/inbox', { params: { path: { id: p.id } } }))));
    const items: Item[] = inboxes.flatMap((inbox, i) => inbox.data.map((item) => ({ ...item, pipeline: pipelines[i]! })));
    items.sort((a, b) => b.priority - a.priority);
    // What the pipelines' inboxes do not hold: publishes that failed, accounts that stopped working.
    const failed = await client.paginate('/api/agent/v1/artifacts', { params: { query: { state: ['publish_failed'], limit: 100 } } }).toArray({ limit: 100 });
    const dead = (await client.paginate('/api/agent/v1/accounts', { params: { query: { limit: 100 } } }).toArray({ limit: 1000 })).filter(
      (a) => a.status === 'dead',
    );
    return { items, failed, dead, pipelines: pipelines.length };
  }, []);

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
      {load.data && load.data.items.length + load.data.failed.length + load.data.dead.length === 0 ? (
        <Empty>Nothing needs attention. {load.data.pipelines === 0 ? 'Import an export under Imports to start.' : ''}</Empty>
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
        {load.data?.items.map((item) => (
          <li key={item.id} class={`card kind-${item.kind}`}>
            <p class="meta">
              <span class="badge">{KIND[item.kind]}</span> <UserText text={item.pipeline.handle} /> · {fmtDate(item.created_at)}
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
    </section>
  );
}
