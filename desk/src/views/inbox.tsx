// Inbox: what needs attention in every pipeline this desk knows, each item with the action that
// resolves it (open the draft, draft from the post).
import { useState } from 'preact/hooks';
import { unwrap, type Schemas } from '../../../clients/typescript/src/index.js';
import { Empty, ErrorNote, fmtDate, knownPipelines, newKey, rememberPipeline, useLoad, UserText, type Client } from '../ui.js';

type Item = Schemas['InboxItem'] & { pipeline: Schemas['Pipeline'] };

const KIND: Record<Schemas['InboxItem']['kind'], string> = {
  draft_in_review: 'Draft to review',
  source_without_artifact: 'Post without a draft',
  flagged_anomaly: 'Needs attention',
  scheduled_publish: 'Scheduled',
};

export function PipelinePicker(props: { onAdd: (id: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        const id = value.trim();
        if (/^[A-Za-z0-9_-]{1,100}$/.test(id)) {
          rememberPipeline(id);
          props.onAdd(id);
          setValue('');
        }
      }}
    >
      <label for="add-pipeline">Add a pipeline by id</label>
      <input id="add-pipeline" value={value} placeholder="pl_…" onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
      <button type="submit">Add</button>
    </form>
  );
}

export function InboxView(props: { client: Client }) {
  const { client } = props;
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const load = useLoad(async () => {
    const items: Item[] = [];
    const problems: string[] = [];
    for (const id of knownPipelines()) {
      try {
        const pipeline = await unwrap(client.GET('/api/agent/v1/pipelines/{id}', { params: { path: { id } } }));
        const inbox = await unwrap(client.GET('/api/agent/v1/pipelines/{id}/inbox', { params: { path: { id } } }));
        for (const item of inbox.data) items.push({ ...item, pipeline });
      } catch {
        problems.push(id);
      }
    }
    items.sort((a, b) => b.priority - a.priority);
    return { items, problems };
  }, []);

  const draftFrom = async (postId: string) => {
    setBusy(postId);
    setActionError(null);
    try {
      const r = await unwrap(client.POST('/api/agent/v1/posts/{id}/draft', { params: { path: { id: postId } }, body: { idempotency_key: newKey('draft') } }));
      location.hash = `#/drafts/${r.artifact_id}`;
    } catch (err) {
      setActionError(err);
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby="inbox-title">
      <h1 id="inbox-title">Inbox</h1>
      <PipelinePicker onAdd={load.reload} />
      <ErrorNote error={load.error ?? actionError} />
      {load.loading && !load.data ? <p class="loading">Loading…</p> : null}
      {load.data?.problems.length ? <p class="error">Could not read {load.data.problems.join(', ')}: removed or in another workspace.</p> : null}
      {load.data && load.data.items.length === 0 ? (
        <Empty>Nothing needs attention. {knownPipelines().length === 0 ? 'Import an export under Imports, or add a pipeline by its id, to start.' : ''}</Empty>
      ) : null}
      <ul class="cards">
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
                <button type="button" disabled={busy === item.post_id} onClick={() => void draftFrom(item.post_id!)}>
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
