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
const inboxPage = (id: string, query: { cursor?: string; limit?: number }) =>
  unwrap(t.s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id }, query } }));

/** `n` drafts in `state`, made a minute apart from `base` (so oldest first is their order), inserted in batches. */
async function seedDrafts(pipelineId: string, postId: string, n: number, state: string, base: number): Promise<string[]> {
  const deps = t.s.running.deps;
  const rows = Array.from({ length: n }, (_, i) => {
    const id = deps.ids.id('art');
    const at = new Date(base + i * 60_000);
    return { id, workspaceId: t.ws, pipelineId, sourcePostId: postId, rootArtifactId: id, text: `Draft ${state} ${i}`, state, createdAt: at, updatedAt: at };
  });
  for (let i = 0; i < rows.length; i += 200)
    await deps.db
      .insertInto('Artifact')
      .values(rows.slice(i, i + 200))
      .execute();
  return rows.map((r) => r.id);
}
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
    const ready = await seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId: pl, postId: drafted, state: 'ready', text: 'Approved.' });
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
      ['draft_ready', null, 55],
      ['source_without_artifact', null, 50],
      ['source_without_artifact', null, 26],
      ['source_without_artifact', null, 14],
    ]);
    const [noAccount, ingest, draftFailed, inReview, approved, ...sources] = data;
    expect(approved).toMatchObject({
      id: `draft_ready:${ready.id}`,
      artifact_id: ready.id,
      title: 'Schedule or publish: Approved.',
      suggested_action: 'publish_artifact',
      suggested_endpoint: `POST ${V1}/artifacts/${ready.id}/publish`,
    });
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

  it('comes in pages of at most 100 (limit), in priority order, until next_cursor is null', async () => {
    const pl = await pipeline('@inbox3@mastodon.example');
    for (let n = 0; n < 105; n++) await post(pl, n, n);
    const first = await inbox(pl);
    expect(first.data).toHaveLength(100);
    expect(of(first.data, 'source_without_artifact')).toHaveLength(98);
    const priorities = first.data.map((i) => i.priority);
    expect([...priorities].sort((a, b) => b - a)).toEqual(priorities);
    expect(first.counts.total).toBe(107);
    expect(first.counts.by_kind).toEqual({ flagged_anomaly: 2, scheduled_publish: 0, draft_in_review: 0, draft_ready: 0, source_without_artifact: 105 });
    const second = await inboxPage(pl, { cursor: first.next_cursor!, limit: 100 });
    expect(second.data).toHaveLength(7);
    expect(second.next_cursor).toBeNull();
    expect(new Set([...first.data, ...second.data].map((i) => i.id)).size).toBe(107);
    // Smaller pages give the same order.
    const small: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await inboxPage(pl, { cursor, limit: 30 });
      expect(page.data.length).toBeLessThanOrEqual(30);
      small.push(...page.data.map((i) => i.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(small).toEqual([...first.data, ...second.data].map((i) => i.id));
  });

  it('reaches every one of 1,010 drafts in review, oldest first, with counts over every page, while drafts leave it', async () => {
    const pl = await pipeline('@inbox5@mastodon.example');
    const postId = await post(pl, 1, 1);
    const base = Date.UTC(2026, 9, 1);
    const ids = await seedDrafts(pl, postId, 1010, 'review', base);
    const readyIds = await seedDrafts(pl, postId, 3, 'ready', base);
    await seedDrafts(pl, postId, 2, 'publish_failed', base);
    const first = await inbox(pl);
    expect(first.counts.by_state).toEqual({ review: 1010, ready: 3, scheduled: 0, publish_failed: 2 });
    expect(first.counts.by_kind.draft_in_review).toBe(1010);
    expect(first.counts.by_kind.draft_ready).toBe(3);
    // The pipeline's default destination (its own handle) is where all 1,015 waiting drafts go.
    expect(first.counts.by_destination).toEqual([
      { destination: 'mastodon:@inbox5@mastodon.example', account_id: null, platform: 'mastodon', handle: '@inbox5@mastodon.example', waiting: 1015 },
    ]);
    // publish_failed first, then the drafts in review oldest first.
    const kinds = first.data.map((i) => i.kind);
    expect(kinds.indexOf('draft_in_review')).toBeGreaterThan(kinds.lastIndexOf('flagged_anomaly'));
    expect(of(first.data, 'draft_in_review').map((i) => i.artifact_id)).toEqual(ids.slice(0, of(first.data, 'draft_in_review').length));
    // Page through, discarding a draft not yet seen and one already seen on the way: none skips, none comes twice.
    const seen: string[] = [];
    let page = first;
    let discarded = false;
    for (;;) {
      seen.push(...of(page.data, 'draft_in_review').map((i) => i.artifact_id!));
      if (!page.next_cursor) break;
      if (!discarded) {
        await moveArtifact(t.s, ids[500]!, 'discarded');
        await moveArtifact(t.s, ids[0]!, 'discarded');
        discarded = true;
      }
      page = await inboxPage(pl, { cursor: page.next_cursor });
    }
    expect(seen).toEqual(ids.filter((id) => id !== ids[500]));
    expect(of(page.data, 'draft_ready').map((i) => i.artifact_id)).toEqual(readyIds);
    expect(page.counts.by_state.review).toBe(1008);
  });

  it('refuses a tampered cursor, or one of another pipeline, with 400', async () => {
    const a = await pipeline('@inbox6@mastodon.example');
    const b = await pipeline('@inbox7@mastodon.example');
    for (let n = 0; n < 3; n++) await post(a, n, n);
    const { next_cursor } = await inboxPage(a, { limit: 1 });
    expect(next_cursor).toEqual(expect.any(String));
    const tampered = `${next_cursor!.slice(0, -2)}xx`;
    for (const [id, cursor] of [
      [a, tampered],
      [b, next_cursor!],
    ] as const) {
      const r = await refusal(inboxPage(id, { cursor }));
      expect(r.status).toBe(400);
      expect(r.code).toBe('bad_request');
    }
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
