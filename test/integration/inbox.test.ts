// The inbox through the client: its three kinds, most urgent first (anomalies, drafts in review,
// then posts without a draft by engagement), with the ids and the calls an agent needs.
import { describe, expect, it } from 'vitest';
import { unwrap, type Schemas } from '../../clients/typescript/src/index.js';
import { upsertPost } from '../../server/store/posts.js';
import { waitForRun } from '../support/runs.js';
import { seedArtifact } from '../support/seed.js';
import { serverSuite } from '../support/suite.js';
import { refusal } from '../support/errors.js';
import { insertRow } from '../support/rows.js';
import { moveArtifact, newPipeline, unique, V1 } from '../support/api.js';

const t = serverSuite();

async function pipeline(handle: string) {
  const r = await newPipeline(t.s, { handle, intent: unique('inbox') });
  await waitForRun(t.s.running.deps, r.run_id);
  return r.pipeline_id;
}

async function post(pipelineId: string, n: number, likes: number, reposts = 0) {
  const { post } = await upsertPost(t.s.running.deps.db, {
    id: t.s.running.deps.ids.id('post'),
    workspaceId: t.ws,
    pipelineId,
    platform: 'mastodon',
    externalId: `inbox-${pipelineId}-${n}`,
    url: null,
    text: `Post ${n}\nsecond line`,
    publishedAt: new Date(Date.UTC(2026, 10, 1, n)),
    likes,
    reposts,
    replies: 0,
    quotes: 0,
  });
  return post.id;
}

const inbox = (id: string, token = t.s.token) => unwrap(t.s.client(token).GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id } } }));
const of = (items: Schemas['InboxItem'][], kind: string) => items.filter((i) => i.kind === kind);

describe('the inbox', () => {
  it('lists anomalies, then drafts in review, then posts without a draft, best-performing first', async () => {
    const pl = await pipeline('@inbox@mastodon.example'); // no account: ingest fails with credential_missing
    const low = await post(pl, 1, 5);
    const best = await post(pl, 2, 10, 20); // score 50
    const mid = await post(pl, 3, 20); // score 20
    const drafted = await post(pl, 4, 100);
    const review = await seedArtifact(t.s.running.deps, {
      workspaceId: t.ws,
      pipelineId: pl,
      postId: drafted,
      state: 'review',
      text: 'Release notes, rewritten.\nMore.',
    });
    await seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId: pl, postId: drafted, state: 'ready' });
    const failed = await seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId: pl, postId: drafted, state: 'discarded', text: '' });
    const runId = t.s.running.deps.ids.id('run');
    await insertRow(t.s.running.deps.db, 'Run', {
      id: runId,
      workspaceId: t.ws,
      pipelineId: pl,
      kind: 'draft',
      status: 'failed',
      input: JSON.stringify({ artifact_id: failed.id }),
      errorCode: 'writer_failed',
      errorMessage: 'HTTP 401',
      finishedAt: new Date(),
      createdAt: new Date(),
      runAfter: new Date(),
    });

    const { pipeline_id, data } = await inbox(pl);
    expect(pipeline_id).toBe(pl);
    expect(data.map((i) => [i.kind, i.anomaly?.code ?? null, i.priority])).toEqual([
      ['flagged_anomaly', 'no_account', 95],
      ['flagged_anomaly', 'ingest_failed', 90],
      ['flagged_anomaly', 'draft_failed', 80],
      ['draft_in_review', null, 60],
      ['source_without_artifact', null, 50],
      ['source_without_artifact', null, 26],
      ['source_without_artifact', null, 14],
    ]);
    const [noAccount, ingest, draftFailed, inReview, ...sources] = data;
    expect(noAccount).toMatchObject({ suggested_action: 'connect_account', suggested_endpoint: `POST ${V1}/accounts/connect` });
    expect(ingest).toMatchObject({ suggested_action: 'diagnose_pipeline', suggested_endpoint: `GET ${V1}/pipelines/${pl}/diagnose` });
    expect(ingest!.anomaly!.message).toContain('credential_missing');
    expect(draftFailed).toMatchObject({
      id: `flagged_anomaly:draft_failed:${runId}`,
      artifact_id: failed.id,
      post_id: drafted,
      suggested_action: 'draft_post',
      suggested_endpoint: `POST ${V1}/posts/${drafted}/draft`,
    });
    expect(draftFailed!.anomaly).toEqual({ code: 'draft_failed', message: 'writer_failed: HTTP 401' });
    expect(inReview).toMatchObject({
      id: `draft_in_review:${review.id}`,
      artifact_id: review.id,
      post_id: drafted,
      title: 'Review draft: Release notes, rewritten.',
      suggested_action: 'review_artifact',
      suggested_endpoint: `GET ${V1}/artifacts/${review.id}`,
    });
    expect(sources.map((i) => i.post_id)).toEqual([best, mid, low]);
    expect(sources[0]).toMatchObject({
      id: `source_without_artifact:${best}`,
      title: 'Draft from: Post 2',
      artifact_id: null,
      anomaly: null,
      suggested_action: 'draft_post',
      suggested_endpoint: `POST ${V1}/posts/${best}/draft`,
    });

    // the same state gives the same items
    expect((await inbox(pl)).data).toEqual(data);
  });

  it('drops a post from the inbox once it has a draft, and a draft once it leaves review', async () => {
    const pl = await pipeline('@inbox2@mastodon.example');
    const p = await post(pl, 1, 3);
    const before = await inbox(pl);
    expect(of(before.data, 'source_without_artifact').map((i) => i.post_id)).toEqual([p]);
    const a = await seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId: pl, postId: p, state: 'review' });
    const during = await inbox(pl);
    expect(of(during.data, 'source_without_artifact')).toEqual([]);
    expect(of(during.data, 'draft_in_review').map((i) => i.artifact_id)).toEqual([a.id]);
    await moveArtifact(t.s, a.id, 'ready');
    expect(of((await inbox(pl)).data, 'draft_in_review')).toEqual([]);
  });

  it('holds at most 100 items', async () => {
    const pl = await pipeline('@inbox3@mastodon.example');
    for (let n = 0; n < 105; n++) await post(pl, n, n);
    const { data } = await inbox(pl);
    expect(data).toHaveLength(100);
    expect(of(data, 'source_without_artifact')).toHaveLength(98);
    const priorities = data.map((i) => i.priority);
    expect([...priorities].sort((a, b) => b - a)).toEqual(priorities);
  });

  it('is 404 for an unknown pipeline and for another workspace', async () => {
    const pl = await pipeline('@inbox4@mastodon.example');
    for (const [id, token] of [
      ['pl_nope', t.s.token],
      [pl, await t.s.newWorkspace()],
    ] as const) {
      expect((await refusal(inbox(id, token))).status).toBe(404);
    }
  });
});
