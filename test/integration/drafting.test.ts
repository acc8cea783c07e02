// Drafting through the typed client against a real server: the reserved artifact, the run that
// writes it with the built-in writer, genealogy over re-drafts, briefs, the events, and the
// refusals (unknown post, foreign parent, parent still being written, posts of another pipeline).
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { draftJob } from '../../server/services/drafting.js';
import { refusal } from '../support/errors.js';
import { seedArtifact } from '../support/seed.js';
import { serverSuite } from '../support/suite.js';
import { expectRunSucceeded } from '../support/runs.js';
import { upsertPost } from '../../server/store/posts.js';
import { countRows, findRows, insertRow } from '../support/rows.js';
import { newPipeline, unique, V1 } from '../support/api.js';

const t = serverSuite();

const SOURCE =
  'Shipped v2.3 of our importer today. It is 4x faster on large CSV files, because we stream rows instead of loading the whole file. Memory use dropped from 2 GB to 150 MB. https://example.org/blog/v2-3 #opensource';

async function pipeline(intent = unique('Weekly posts about releases')) {
  return (await newPipeline(t.s, { intent, tone: 'plain and technical' })).pipeline_id;
}

let seq = 0;
async function post(pipelineId: string, text = SOURCE) {
  const { post } = await upsertPost(t.s.running.deps.db, {
    id: t.s.running.deps.ids.id('post'),
    workspaceId: t.ws,
    pipelineId,
    platform: 'mastodon',
    externalId: `ext-${seq++}`,
    url: `https://mastodon.example/@ada/${seq}`,
    text,
    publishedAt: new Date(Date.UTC(2026, 10, 1, 0, seq)),
    likes: 40,
    reposts: 5,
    replies: 2,
    quotes: 0,
  });
  return post.id;
}

const draft = (
  postId: string,
  body: { parent_artifact_id?: string; additional_post_ids?: string[]; style_reference?: string } = {},
  key = newIdempotencyKey(),
) => unwrap(t.s.client().POST(`${V1}/posts/{id}/draft`, { params: { path: { id: postId } }, body: { ...body, idempotency_key: key } }));

const getArtifact = (id: string) => unwrap(t.s.client().GET(`${V1}/artifacts/{id}`, { params: { path: { id } } }));

async function drafted(postId: string, body: Parameters<typeof draft>[1] = {}) {
  const accepted = await draft(postId, body);
  const { output } = await expectRunSucceeded(t.s.running.deps, accepted.run_id);
  expect(output?.artifact_id).toBe(accepted.artifact_id);
  return getArtifact(accepted.artifact_id);
}

async function eventsOf(type: string) {
  const rows = await findRows(t.s.running.deps.db, 'Event', { workspaceId: t.ws, type }, 'seq');
  return rows.map((r) => JSON.parse(r.data) as Record<string, unknown>);
}

describe('a first draft', () => {
  it('reserves the artifact, and the run writes a real draft in review with a first-draft genealogy', async () => {
    const pl = await pipeline();
    const postId = await post(pl);
    const accepted = await draft(postId);
    expect(accepted.artifact_id).toMatch(/^art_/);
    const { output } = await expectRunSucceeded(t.s.running.deps, accepted.run_id);
    expect(output).toMatchObject({ artifact_id: accepted.artifact_id, written: true, writer: 'builtin' });

    const a = await getArtifact(accepted.artifact_id);
    expect(a.state).toBe('review');
    expect(a.kind).toBe('riff');
    expect(a.pipeline_id).toBe(pl);
    expect(a.genealogy).toEqual({
      source_post_id: postId,
      source_post_ids: [postId],
      parent_artifact_id: null,
      root_artifact_id: a.id,
      generation: 0,
      ancestors: [],
    });
    // A rewrite, not a copy: it keeps the facts, drops nothing essential, and is not the source.
    expect(a.text).not.toBe(SOURCE);
    expect(a.text).toContain('150 MB');
    expect(a.text).toContain('https://example.org/blog/v2-3');
    expect([...a.text].length).toBeLessThanOrEqual(500);

    const posts = await unwrap(t.s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: pl }, query: { has_artifact: true } } }));
    expect(posts.data.map((p) => p.id)).toEqual([postId]);

    const ready = (await eventsOf('riff.ready')).filter((e) => e.riff_id === a.id);
    expect(ready).toEqual([{ riff_id: a.id, artifact_id: a.id, source_post_id: postId, pipeline_id: pl }]);
    expect((await eventsOf('riff.refined')).some((e) => e.riff_id === a.id)).toBe(false);
  });

  it('answers a replayed request with the same run and artifact, and drafts once', async () => {
    const pl = await pipeline();
    const postId = await post(pl);
    const key = newIdempotencyKey();
    const first = await draft(postId, {}, key);
    const again = await draft(postId, {}, key);
    expect(again).toEqual(first);
    await expectRunSucceeded(t.s.running.deps, first.run_id);
    expect(await countRows(t.s.running.deps.db, 'Artifact', { sourcePostId: postId })).toBe(1);
  });

  it('is 404 for a post that does not exist or belongs to another workspace', async () => {
    expect((await refusal(draft('post_nope'))).status).toBe(404);
    const pl = await pipeline();
    const postId = await post(pl);
    const other = await t.s.newWorkspace();
    const err = await refusal(
      unwrap(t.s.client(other).POST(`${V1}/posts/{id}/draft`, { params: { path: { id: postId } }, body: { idempotency_key: newIdempotencyKey() } })),
    );
    expect(err.status).toBe(404);
  });
});

describe('re-drafts', () => {
  it('extend the genealogy generation by generation, differ from their parent, and emit riff.refined', async () => {
    const pl = await pipeline();
    const postId = await post(pl);
    const root = await drafted(postId);
    const child = await drafted(postId, { parent_artifact_id: root.id });
    expect(child.genealogy).toEqual({
      source_post_id: postId,
      source_post_ids: [postId],
      parent_artifact_id: root.id,
      root_artifact_id: root.id,
      generation: 1,
      ancestors: [root.id],
    });
    expect(child.text).not.toBe(root.text);
    const grandchild = await drafted(postId, { parent_artifact_id: child.id });
    expect(grandchild.genealogy).toMatchObject({ parent_artifact_id: child.id, root_artifact_id: root.id, generation: 2, ancestors: [child.id, root.id] });
    expect(grandchild.text).not.toBe(child.text);

    const refined = (await eventsOf('riff.refined')).filter((e) => [child.id, grandchild.id].includes(e.riff_id as string));
    expect(refined).toEqual([
      { riff_id: child.id, artifact_id: child.id, parent_id: root.id },
      { riff_id: grandchild.id, artifact_id: grandchild.id, parent_id: child.id },
    ]);
    // every riff that reaches ready says so, re-drafts included
    expect((await eventsOf('riff.ready')).filter((e) => e.riff_id === grandchild.id)).toHaveLength(1);
  });

  it('refuses a parent from another post, an unknown parent, and a parent with additional posts (422 naming the field)', async () => {
    const pl = await pipeline();
    const [p1, p2] = [await post(pl), await post(pl)];
    const a1 = await drafted(p1);
    const cases: Array<[string, Parameters<typeof draft>[1], string]> = [
      [p2, { parent_artifact_id: a1.id }, 'parent_artifact_id'],
      [p1, { parent_artifact_id: 'art_missing' }, 'parent_artifact_id'],
      [p1, { parent_artifact_id: a1.id, additional_post_ids: [p2] }, 'additional_post_ids'],
    ];
    for (const [postId, body, field] of cases) {
      const err = await refusal(draft(postId, body));
      expect(err.status).toBe(422);
      expect(err.code).toBe('validation_failed');
      expect(err.message).toContain(field);
    }
  });

  it('is 409 while the parent is still a draft being written', async () => {
    const pl = await pipeline();
    const postId = await post(pl);
    const unwritten = await seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId: pl, postId, state: 'draft', text: '' });
    const err = await refusal(draft(postId, { parent_artifact_id: unwritten.id }));
    expect(err.status).toBe(409);
    expect(err.code).toBe('state_conflict');
  });
});

describe('briefs', () => {
  it('draw on several posts of the pipeline, count on each, and emit brief.ready', async () => {
    const pl = await pipeline();
    const p1 = await post(pl);
    const p2 = await post(pl, 'We moved CI to self-hosted runners. Builds take 6 minutes instead of 20.');
    const p3 = await post(pl, 'The docs have a search box now. Try it on any page.');
    const brief = await drafted(p1, { additional_post_ids: [p2, p3] });
    expect(brief.kind).toBe('brief');
    expect(brief.genealogy.source_post_ids).toEqual([p1, p2, p3]);
    expect(brief.text).toMatch(/self-hosted runners/);
    expect(brief.text).toMatch(/search box/);
    expect((await eventsOf('brief.ready')).filter((e) => e.brief_id === brief.id)).toEqual([{ brief_id: brief.id, artifact_id: brief.id }]);
    expect((await eventsOf('riff.ready')).some((e) => e.riff_id === brief.id)).toBe(false);

    const refined = await drafted(p1, { parent_artifact_id: brief.id });
    expect(refined.kind).toBe('brief');
    expect(refined.genealogy.source_post_ids).toEqual([p1, p2, p3]);
    expect((await eventsOf('brief.refined')).filter((e) => e.brief_id === refined.id)).toEqual([
      { brief_id: refined.id, artifact_id: refined.id, parent_id: brief.id },
    ]);

    const posts = await unwrap(t.s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: pl }, query: { has_artifact: false } } }));
    expect(posts.data).toEqual([]);
  });

  it('refuses posts of another pipeline and the path post repeated', async () => {
    const [pl1, pl2] = [await pipeline(), await pipeline()];
    const [p1, foreign] = [await post(pl1), await post(pl2)];
    for (const ids of [[foreign], [p1]]) {
      const err = await refusal(draft(p1, { additional_post_ids: ids }));
      expect(err.status).toBe(422);
      expect(err.message).toContain('additional_post_ids');
    }
  });
});

describe('the drafting run', () => {
  it('writes nothing into an artifact discarded before the run got to it', async () => {
    const pl = await pipeline();
    const postId = await post(pl);
    const a = await seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId: pl, postId, state: 'discarded', text: '' });
    const run = await insertRow(t.s.running.deps.db, 'Run', {
      id: 'run_direct_1',
      workspaceId: t.ws,
      pipelineId: pl,
      kind: 'draft',
      status: 'running',
      input: '{}',
      createdAt: new Date(),
      runAfter: new Date(),
    });
    const out = await draftJob({
      deps: t.s.running.deps,
      run,
      input: { artifact_id: a.id, style_reference: null },
      log: pino({ level: 'silent' }),
      signal: new AbortController().signal,
    });
    expect(out).toEqual({ artifact_id: a.id, written: false, state: 'discarded' });
    expect((await getArtifact(a.id)).text).toBe('');
  });
});
