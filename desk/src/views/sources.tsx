// Sources: a pipeline's posts with their metrics, filtered by whether they have a draft, and a
// draft written from one.
import { useState } from 'preact/hooks';
import { unwrap, type Schemas } from '../../../clients/typescript/src/browser.js';
import { allPipelines, Empty, ErrorNote, ExternalLink, fmtDate, fmtNumber, newKey, useLoad, UserText, type Client } from '../ui.js';

const TARGETS: Schemas['TargetPlatform'][] = ['mastodon', 'bluesky', 'x'];

export function SourcesView(props: { client: Client; pipelineId: string | undefined }) {
  const { client } = props;
  const pipelines = useLoad(() => allPipelines(client), []);
  const pipelineId = props.pipelineId ?? pipelines.data?.[0]?.id;
  const [filter, setFilter] = useState<'all' | 'with' | 'without'>('all');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const load = useLoad(async () => {
    if (!pipelineId) return null;
    const has_artifact = filter === 'all' ? undefined : filter === 'with';
    return unwrap(
      client.GET('/api/agent/v1/pipelines/{id}/posts', {
        params: { path: { id: pipelineId }, query: { limit: 20, ...(cursor ? { cursor } : {}), ...(has_artifact === undefined ? {} : { has_artifact }) } },
      }),
    );
  }, [pipelineId, filter, cursor]);
  const draft = async (post: Schemas['SourcePost']) => {
    setError(null);
    try {
      const r = await unwrap(
        client.POST('/api/agent/v1/posts/{id}/draft', { params: { path: { id: post.id } }, body: { targets: TARGETS, idempotency_key: newKey('draft') } }),
      );
      location.hash = `#/drafts/${r.artifact_id}`;
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="sources-title">
      <h1 id="sources-title">Sources</h1>
      <form class="inline">
        <label for="pipeline-pick">Pipeline</label>
        <select id="pipeline-pick" value={pipelineId ?? ''} onChange={(e) => (location.hash = `#/sources/${(e.target as HTMLSelectElement).value}`)}>
          {pipelines.data?.map((p) => (
            <option key={p.id} value={p.id}>
              {p.handle} · {p.post_count} posts
            </option>
          ))}
        </select>
        <label for="has-draft">Show</label>
        <select
          id="has-draft"
          value={filter}
          onChange={(e) => {
            setCursor(undefined);
            setFilter((e.target as HTMLSelectElement).value as typeof filter);
          }}
        >
          <option value="all">all posts</option>
          <option value="with">posts with a draft</option>
          <option value="without">posts without a draft</option>
        </select>
      </form>
      {pipelines.data && !pipelineId ? <Empty>No pipeline yet: import an export under Imports to start.</Empty> : null}
      <ErrorNote error={pipelines.error ?? load.error ?? error} />
      {load.data && load.data.data.length === 0 ? <Empty>No post matches.</Empty> : null}
      <ul class="cards">
        {load.data?.data.map((post) => (
          <li key={post.id} class="card">
            <p class="meta">
              {post.platform} · {fmtDate(post.published_at)} · {post.visibility}
              {post.has_artifact ? <span class="badge">has a draft</span> : null}
            </p>
            <UserText text={post.text} block />
            <p class="metrics">
              {fmtNumber(post.metrics.likes)} likes · {fmtNumber(post.metrics.reposts)} reposts · {fmtNumber(post.metrics.replies)} replies ·{' '}
              {fmtNumber(post.metrics.quotes)} quotes
              {post.media.length ? ` · ${post.media.length} media` : ''}
            </p>
            <p class="actions">
              {post.url ? <ExternalLink href={post.url}>Original</ExternalLink> : null}
              <button type="button" onClick={() => void draft(post)}>
                Draft from this post
              </button>
            </p>
          </li>
        ))}
      </ul>
      {load.data?.next_cursor ? (
        <button type="button" onClick={() => setCursor(load.data!.next_cursor!)}>
          Next page
        </button>
      ) : null}
    </section>
  );
}
