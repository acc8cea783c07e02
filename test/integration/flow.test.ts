// The service's whole walk, end to end through the typed client, with the built-in writer and no
// network beyond a local fake feed: connect an RSS feed (or import an archive), run a pipeline,
// list posts with metrics, draft from a post, read the artifact with its genealogy, publish it.
// Every step is a call a README reader makes; runs are followed with GET /runs/{id}.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap, type ApiClient } from '../../clients/typescript/src/index.js';
import { rssFeed } from '../support/feeds.js';
import { reply, startFake, type Fake } from '../support/https-fake.js';
import { serverSuite } from '../support/suite.js';
import { markPublished, V1 } from '../support/api.js';

let fake: Fake;

const ITEMS = [
  {
    guid: 'https://blog.example.org/importer-v2-3',
    title: 'Importer v2.3: 4x faster on large files',
    description:
      'We rewrote the importer to stream rows instead of loading whole files. Large CSV imports are 4x faster, and memory use dropped from 2 GB to 150 MB.',
    link: 'https://blog.example.org/importer-v2-3',
    pubDate: new Date('2026-11-20T09:00:00Z'),
  },
  {
    guid: 'https://blog.example.org/docs-search',
    title: 'The docs have search now',
    description: 'Search covers every page of the documentation and ranks API references first.',
    link: 'https://blog.example.org/docs-search',
    pubDate: new Date('2026-11-18T09:00:00Z'),
  },
];

beforeAll(async () => {
  fake = await startFake({ handler: reply(200, rssFeed('Example blog', ITEMS), 'application/rss+xml') });
});
const t = serverSuite(() => fake.outboundEnv);
let client: ApiClient;
beforeAll(() => {
  client = t.s.client();
});
afterAll(async () => {
  await fake?.close();
});

/** Polls GET /runs/{id} until the run is finished, as a client would. */
async function finished(runId: string) {
  for (let i = 0; i < 400; i++) {
    const run = await unwrap(client.GET(`${V1}/runs/{id}`, { params: { path: { id: runId } } }));
    if (run.status === 'succeeded' || run.status === 'failed') return run;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`run ${runId} did not finish`);
}

/** From a connected handle to a published artifact: the steps after connecting. */
async function pipelineToPublished(handle: string, expectedPosts: number) {
  const started = await unwrap(
    client.POST(`${V1}/pipelines/from-intent`, {
      body: { handle, intent: 'Short posts about our releases', tone: 'friendly', idempotency_key: newIdempotencyKey() },
    }),
  );
  expect((await finished(started.run_id)).status).toBe('succeeded');

  const posts = await unwrap(client.GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: started.pipeline_id }, query: { limit: 100 } } }));
  expect(posts.data).toHaveLength(expectedPosts);
  for (const p of posts.data) expect(Object.keys(p.metrics).sort()).toEqual(['likes', 'quotes', 'replies', 'reposts']);
  const post = posts.data[0]!;

  const accepted = await unwrap(client.POST(`${V1}/posts/{id}/draft`, { params: { path: { id: post.id } }, body: { idempotency_key: newIdempotencyKey() } }));
  expect((await finished(accepted.run_id)).status).toBe('succeeded');

  const artifact = await unwrap(client.GET(`${V1}/artifacts/{id}`, { params: { path: { id: accepted.artifact_id } } }));
  expect(artifact.state).toBe('review');
  expect(artifact.text.length).toBeGreaterThan(20);
  expect(artifact.text).not.toBe(post.text);
  expect(artifact.genealogy).toEqual({
    source_post_id: post.id,
    source_post_ids: [post.id],
    parent_artifact_id: null,
    root_artifact_id: artifact.id,
    generation: 0,
    ancestors: [],
  });

  // Nothing here posts (a feed, an archive): publishing needs a destination, so the post is made by hand on X and recorded.
  const refused = await client.POST(`${V1}/artifacts/{id}/publish`, { params: { path: { id: artifact.id } }, body: { idempotency_key: newIdempotencyKey() } });
  expect(refused.response.status).toBe(424);
  const published = await unwrap(markPublished(t.s, artifact.id));
  expect(published.state).toBe('published');
  expect(published.text).toBe(artifact.text);
  return { pipelineId: started.pipeline_id, post, artifact: published };
}

describe('the README flow', () => {
  it('RSS: connect a feed, run a pipeline, list posts, draft, read the genealogy, publish', async () => {
    const feed = `${fake.url}/feed.xml`;
    const connected = await unwrap(
      client.POST(`${V1}/accounts/connect`, { body: { platform: 'rss', handle: feed, auth_material: '', idempotency_key: newIdempotencyKey() } }),
    );
    expect(connected.account.platform).toBe('rss');
    const { post, artifact } = await pipelineToPublished(feed, 2);
    // the newest item, and a draft that keeps its facts and points at the article
    expect(post.url).toBe('https://blog.example.org/importer-v2-3');
    expect(artifact.text).toContain('150 MB');
    expect(artifact.text).toContain('https://blog.example.org/importer-v2-3');
  });

  it('Archive: import a Mastodon export, run a pipeline, list posts with metrics, draft, publish', async () => {
    const content = readFileSync(new URL('../fixtures/archives/mastodon-outbox.json', import.meta.url), 'utf8');
    const handle = 'ada-mastodon-export';
    await unwrap(
      client.POST(`${V1}/accounts/connect`, {
        body: { platform: 'archive', handle, auth_material: content, secondary_auth: 'mastodon', idempotency_key: newIdempotencyKey() },
      }),
    );
    const outbox = JSON.parse(content) as { orderedItems: Array<{ type: string; object?: { type?: string; inReplyTo?: unknown } | string }> };
    const notes = outbox.orderedItems.filter(
      (a) => a.type === 'Create' && typeof a.object === 'object' && a.object?.type === 'Note' && !a.object.inReplyTo,
    ).length;
    const { pipelineId } = await pipelineToPublished(handle, notes);
    const pipeline = await unwrap(client.GET(`${V1}/pipelines/{id}`, { params: { path: { id: pipelineId } } }));
    expect(pipeline.artifact_count).toBe(1);
    expect(pipeline.post_count).toBe(notes);
  });
});
