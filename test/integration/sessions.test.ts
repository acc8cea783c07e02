// The session bridges through the client against a real server: items of each kind and their
// checks, activity rows, variant regeneration (rounds, genealogy, refusals) and source refresh
// against a local HTTPS fake page (snapshots only on change, webpage.ready, retries).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { reply, startFake, type Fake } from '../support/https-fake.js';
import { serverSuite } from '../support/suite.js';
import { refusal } from '../support/errors.js';
import { expectRunSucceeded, waitForRun } from '../support/runs.js';
import { seedArtifact, seedPosts } from '../support/seed.js';
import { findRow, findRows } from '../support/rows.js';
import { V1 } from '../support/api.js';

let fake: Fake;
let pipelineId: string;
let postId: string;
/** The fake page's content, and statuses to answer first (then 200). */
let page =
  '<html><head><title>Changelog</title></head><body><article><h1>Changelog</h1><p>Version 1.0 is out with a faster importer.</p></article></body></html>';
let failFirst: number[] = [];

beforeAll(async () => {
  fake = await startFake({
    routes: { '/missing': reply(404, 'no') },
    handler: (req, res, body, params) => {
      const status = failFirst.shift();
      return (status ? reply(status, 'busy') : reply(200, page, 'text/html; charset=utf-8'))(req, res, body, params);
    },
  });
});
const t = serverSuite(() => ({ ...fake.outboundEnv, JOB_RETRY_BASE_MS: '20' }));
beforeAll(async () => {
  const pl = await unwrap(
    t.s.client().POST(`${V1}/pipelines/from-intent`, { body: { handle: 'sessions-archive', intent: 'sessions', idempotency_key: newIdempotencyKey() } }),
  );
  pipelineId = pl.pipeline_id;
  [postId] = (await seedPosts(t.s.running.deps, { workspaceId: t.ws, pipelineId, count: 1, platform: 'archive' })) as [string];
});
afterAll(async () => {
  await fake?.close();
});

type ItemBody = { kind: 'note' | 'source' | 'artifact'; text?: string; url?: string; artifact_id?: string };
const add = (session: string, body: ItemBody, token = t.s.token) =>
  unwrap(
    t.s
      .client(token)
      .POST('/api/sessions/{sessionId}/items', { params: { path: { sessionId: session } }, body: { ...body, idempotency_key: newIdempotencyKey() } }),
  );
const activity = (limit?: number, token = t.s.token) =>
  unwrap(t.s.client(token).GET('/api/sessions/activity', { params: { query: limit === undefined ? {} : { limit } } }));
const regenerate = (session: string, variant: string) =>
  unwrap(t.s.client().POST('/api/sessions/{sessionId}/variants/{variantId}/regenerate', { params: { path: { sessionId: session, variantId: variant } } }));
const refresh = (id: string, token = t.s.token) => unwrap(t.s.client(token).POST('/api/sessions/sources/{id}/refresh', { params: { path: { id } } }));
const getArtifact = (id: string) => unwrap(t.s.client().GET(`${V1}/artifacts/{id}`, { params: { path: { id } } }));

async function events(type: string) {
  const rows = await findRows(t.s.running.deps.db, 'Event', { workspaceId: t.ws, type }, 'seq');
  return rows.map((r) => JSON.parse(r.data) as Record<string, string>);
}

describe('items', () => {
  it('adds a note, a source and an artifact, creating the session on first use', async () => {
    const note = await add('ses_items', { kind: 'note', text: 'Lead with the numbers.' });
    expect(note).toMatchObject({ session_id: 'ses_items', kind: 'note', text: 'Lead with the numbers.', url: null, artifact_id: null, source_id: null });
    const src = await add('ses_items', { kind: 'source', url: 'https://blog.example.org/a' });
    expect(src.source_id).toMatch(/^src_/);
    expect(src.url).toBe('https://blog.example.org/a');
    // one source per URL per workspace: another session tracking the same page shares it
    expect((await add('ses_other', { kind: 'source', url: 'https://blog.example.org/a' })).source_id).toBe(src.source_id);
    const a = await seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId, postId, state: 'review' });
    expect((await add('ses_items', { kind: 'artifact', artifact_id: a.id })).artifact_id).toBe(a.id);
  });

  it('refuses a missing field, a field of another kind, and an artifact of no workspace (422 naming it)', async () => {
    const cases: Array<[ItemBody, string]> = [
      [{ kind: 'note' }, 'text'],
      [{ kind: 'note', text: 'x', url: 'https://a.example/b' }, 'url'],
      [{ kind: 'source', text: 'x' }, 'url'],
      [{ kind: 'artifact', text: 'x', artifact_id: 'art_x' }, 'text'],
      [{ kind: 'artifact', artifact_id: 'art_nope' }, 'artifact_id'],
    ];
    for (const [body, field] of cases) {
      const err = await refusal(add('ses_bad', body));
      expect(err.status).toBe(422);
      expect(err.message).toContain(`body.${field}`);
    }
    // nothing was added, so the session has no activity
    expect((await activity(100)).data.some((r) => r.session_id === 'ses_bad')).toBe(false);
  });
});

describe('activity', () => {
  it('lists the newest rows first, 20 by default, at most `limit`, only the workspace own', async () => {
    const other = await t.s.newWorkspace();
    await add('ses_act', { kind: 'note', text: 'not yours' }, other);
    for (let i = 0; i < 22; i++) await add('ses_act', { kind: 'note', text: `note ${i}` });
    const rows = (await activity()).data;
    expect(rows).toHaveLength(20);
    expect(rows[0]).toMatchObject({ session_id: 'ses_act', kind: 'item_added', summary: 'Added a note: note 21' });
    expect(rows[1]!.summary).toBe('Added a note: note 20');
    expect(rows.some((r) => r.summary.includes('not yours'))).toBe(false);
    expect((await activity(2)).data.map((r) => r.summary)).toEqual(['Added a note: note 21', 'Added a note: note 20']);
    expect((await activity(100, other)).data.map((r) => r.summary)).toEqual(['Added a note: not yours']);
    for (const bad of [0, 101]) expect((await refusal(activity(bad))).status).toBe(422);
  });
});

describe('variant regeneration', () => {
  it('appends numbered rounds, each a re-draft of the round before, with riff.refined and activity', async () => {
    const base = await seedArtifact(t.s.running.deps, {
      workspaceId: t.ws,
      pipelineId,
      postId,
      state: 'review',
      text: 'Post number 0: shipping notes. Release day.',
    });
    const item = await add('ses_var', { kind: 'artifact', artifact_id: base.id });
    const r1 = await regenerate('ses_var', item.id);
    expect(r1).toMatchObject({ session_id: 'ses_var', variant_id: item.id, round: 1 });
    await expectRunSucceeded(t.s.running.deps, r1.run_id);
    const a1 = await getArtifact(r1.artifact_id);
    expect(a1.state).toBe('review');
    expect(a1.genealogy).toMatchObject({ parent_artifact_id: base.id, root_artifact_id: base.id, generation: 1 });

    const r2 = await regenerate('ses_var', item.id);
    expect(r2.round).toBe(2);
    await expectRunSucceeded(t.s.running.deps, r2.run_id);
    const a2 = await getArtifact(r2.artifact_id);
    expect(a2.genealogy).toMatchObject({ parent_artifact_id: a1.id, generation: 2, ancestors: [a1.id, base.id] });
    expect(a2.text).not.toBe(a1.text);

    expect((await events('riff.refined')).filter((e) => [a1.id, a2.id].includes(e.riff_id!))).toEqual([
      { riff_id: a1.id, artifact_id: a1.id, parent_id: base.id },
      { riff_id: a2.id, artifact_id: a2.id, parent_id: a1.id },
    ]);
    const rows = (await activity(100)).data.filter((r) => r.session_id === 'ses_var' && r.kind === 'variant_regenerated');
    expect(rows.map((r) => r.summary)).toEqual([
      `Regenerated variant ${item.id}: round 2 (artifact ${a2.id})`,
      `Regenerated variant ${item.id}: round 1 (artifact ${a1.id})`,
    ]);
  });

  it('is 409 while the variant is still being written, 404 for what is not a variant', async () => {
    const unwritten = await seedArtifact(t.s.running.deps, { workspaceId: t.ws, pipelineId, postId, state: 'draft', text: '' });
    const item = await add('ses_var2', { kind: 'artifact', artifact_id: unwritten.id });
    const busy = await refusal(regenerate('ses_var2', item.id));
    expect(busy.status).toBe(409);
    expect(busy.suggestedAction).toBe('retry_later');
    const note = await add('ses_var2', { kind: 'note', text: 'a note' });
    for (const [session, variant] of [
      ['ses_var2', note.id],
      ['ses_var2', 'itm_nope'],
      ['ses_nope', item.id],
    ]) {
      expect((await refusal(regenerate(session!, variant!))).status).toBe(404);
    }
  });
});

describe('source refresh', () => {
  it('stores a snapshot and emits webpage.ready only when the page changed, and records activity either way', async () => {
    const item = await add('ses_src', { kind: 'source', url: `${fake.url}/changelog` });
    const sourceId = item.source_id!;
    const first = await refresh(sourceId);
    expect(first.source_id).toBe(sourceId);
    const { output: o1 } = await expectRunSucceeded(t.s.running.deps, first.run_id);
    expect(o1).toMatchObject({ source_id: sourceId, changed: true });
    const snap1 = await findRow(t.s.running.deps.db, 'Snapshot', { id: o1!.snapshot_id as string });
    expect(snap1.markdown).toContain('Version 1.0 is out');
    expect(snap1.title).toBe('Changelog');

    const { output: o2 } = await expectRunSucceeded(t.s.running.deps, (await refresh(sourceId)).run_id);
    expect(o2).toMatchObject({ changed: false, snapshot_id: snap1.id });

    page = page.replace('Version 1.0 is out', 'Version 1.1 is out');
    const { output: o3 } = await expectRunSucceeded(t.s.running.deps, (await refresh(sourceId)).run_id);
    expect(o3).toMatchObject({ changed: true });
    expect(o3!.snapshot_id).not.toBe(snap1.id);

    expect((await events('webpage.ready')).filter((e) => e.webpage_id === sourceId)).toEqual([
      { webpage_id: sourceId, snapshot_id: snap1.id },
      { webpage_id: sourceId, snapshot_id: o3!.snapshot_id },
    ]);
    const rows = (await activity(100)).data.filter((r) => r.session_id === 'ses_src' && r.kind === 'source_refreshed');
    expect(rows.map((r) => r.summary.replace(/\(snapshot \w+\)/, '(snapshot)'))).toEqual([
      `Refreshed ${fake.url}/changelog: changed (snapshot)`,
      `Refreshed ${fake.url}/changelog: unchanged`,
      `Refreshed ${fake.url}/changelog: changed (snapshot)`,
    ]);
  });

  it('retries a page that answers 503, and fails a page that stays missing', async () => {
    failFirst = [503, 503];
    const ok = await add('ses_src2', { kind: 'source', url: `${fake.url}/flaky` });
    const { run } = await expectRunSucceeded(t.s.running.deps, (await refresh(ok.source_id!)).run_id);
    expect(run.attempts).toBe(3);

    const gone = await add('ses_src2', { kind: 'source', url: `${fake.url}/missing` });
    const failed = await waitForRun(t.s.running.deps, (await refresh(gone.source_id!)).run_id);
    expect(failed.status).toBe('failed');
    expect(failed.errorMessage).toBe('The page answered HTTP 404.');
    // A 404 is the page's final answer: failed at the first attempt, not retried.
    expect(failed.attempts).toBe(1);
  });

  it('is 404 for an unknown source and for another workspace', async () => {
    const item = await add('ses_src3', { kind: 'source', url: 'https://blog.example.org/c' });
    expect((await refusal(refresh('src_nope'))).status).toBe(404);
    expect((await refusal(refresh(item.source_id!, await t.s.newWorkspace()))).status).toBe(404);
  });
});
