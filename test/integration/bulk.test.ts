// Issue 33: bulk approve, discard and schedule, one idempotent request each. Each artifact goes
// through the single operation (transition, publish with a time), so it gets that operation's
// answer: done, or the same status and error body; the whole request replays by its key; the
// scope is the single operation's; schedule fills the free slots of the calendar in order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap, type Schemas } from '../../clients/typescript/src/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { mastodonStatus, startMastodonFake } from '../support/platforms.js';
import { connect, getArtifact, ingest, listAllPosts, moveArtifact, publishRequest, rawRequest, V1 } from '../support/api.js';
import { countRows } from '../support/rows.js';
import { seedArtifact, workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';

let db: TestDatabase;
let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let workspaceId: string;
let pipeline: { id: string; postId: string };

beforeAll(async () => {
  mastodon = await startMastodonFake({ statuses: [mastodonStatus(1)] });
  db = await createTestDatabase();
  s = await startTestServer({ db, env: { ...outboundEnvFor(mastodon.fake), JOB_POLL_MS: '50' } });
  workspaceId = await workspaceOf(s.running.deps, s.token);
  await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
  const { pipeline_id } = await ingest(s, mastodon.handle);
  pipeline = { id: pipeline_id, postId: (await listAllPosts(s, pipeline_id))[0]!.id };
});

afterAll(async () => {
  await s?.running.stop();
  await db?.drop();
  await mastodon?.fake.close();
});

const seed = async (n: number, state: string, text = 'Bulk draft') => {
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push((await seedArtifact(s.running.deps, { workspaceId, pipelineId: pipeline.id, postId: pipeline.postId, state, text: `${text} ${i}` })).id);
  return ids;
};
type Result = Schemas['BulkResult'];
const post = (path: string, body: unknown, token: string | null = s.token) =>
  rawRequest(s, `${V1}/artifacts/bulk/${path}`, { method: 'POST', token, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
const stateOf = async (id: string) => (await getArtifact(s, id)).state;

describe('bulk transition', () => {
  it('approves 50 drafts in one request, each as the single move would, and answers each refusal as the single move does', async () => {
    const ids = await seed(50, 'review');
    const [done] = await seed(1, 'ready');
    await moveArtifact(s, ids[7]!, 'discarded');
    const key = newIdempotencyKey();
    const body = { to: 'ready', artifact_ids: [...ids, done!, 'art_nope'], idempotency_key: key };
    const r = await post('transition', body);
    expect(r.res.status).toBe(200);
    const result = r.body as unknown as Result;
    expect(result.succeeded).toBe(49);
    expect(result.failed).toBe(3);
    expect(result.data.map((o) => o.artifact_id)).toEqual(body.artifact_ids);
    for (const [i, id] of ids.entries()) {
      if (i === 7) continue;
      expect(result.data[i]).toEqual({ artifact_id: id, status: 200, state: 'ready', scheduled_at: null, refusal: null });
      expect(await stateOf(id)).toBe('ready');
    }
    // The same refusals as the single operation, body and status.
    const single = await rawRequest(s, `${V1}/artifacts/${ids[7]}/transition`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ to: 'ready', idempotency_key: newIdempotencyKey() }),
    });
    expect(result.data[7]).toEqual({ artifact_id: ids[7], status: single.res.status, state: null, scheduled_at: null, refusal: single.body });
    expect(result.data[7]!.refusal!.error.code).toBe('state_conflict');
    expect(result.data[50]).toMatchObject({ status: 409, refusal: { error: { code: 'state_conflict', message: expect.stringContaining('already ready') } } });
    expect(result.data[51]).toMatchObject({ artifact_id: 'art_nope', status: 404, refusal: { error: { code: 'not_found' } } });

    // The whole request is idempotent: a replay answers the first answer and moves nothing.
    await moveArtifact(s, ids[0]!, 'review');
    const again = await post('transition', body);
    expect(again.res.status).toBe(200);
    expect(again.res.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(r.body);
    expect(await stateOf(ids[0]!)).toBe('review');
    // The same key with another body is 422 naming it.
    const other = await post('transition', { ...body, to: 'discarded' });
    expect(other.res.status).toBe(422);
    expect(other.body.error?.message).toMatch(/idempotency_key/);
  });

  it('discards several, a scheduled one included (its queued run cancelled), as the single discard does', async () => {
    const [a, b] = await seed(2, 'ready');
    await publishRequest(s, b!, { at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(await stateOf(b!)).toBe('scheduled');
    const r = await post('transition', { to: 'discarded', artifact_ids: [a, b], idempotency_key: newIdempotencyKey() });
    expect((r.body as unknown as Result).data.map((o) => o.state)).toEqual(['discarded', 'discarded']);
    expect(await countRows(s.running.deps.db, 'Run', { kind: 'publish', status: 'queued' })).toBe(0);
  });

  it('refuses a list that is empty, too long or names an id twice with 422 naming the field, and moves nothing', async () => {
    const [a] = await seed(1, 'review');
    for (const artifact_ids of [[], Array.from({ length: 101 }, (_, i) => `art_${i}`), [a, a]]) {
      const r = await post('transition', { to: 'ready', artifact_ids, idempotency_key: newIdempotencyKey() });
      expect(r.res.status).toBe(422);
      expect(r.body.error?.message).toMatch(/artifact_ids/);
    }
    expect(await stateOf(a!)).toBe('review');
  });
});

describe('bulk schedule', () => {
  it('schedules 50 into the free slots from `at`, one every `every_minutes`, around what the calendar holds', async () => {
    const ids = await seed(50, 'ready', 'Scheduled in bulk');
    const first = new Date(Math.ceil((Date.now() + 86_400_000) / 3_600_000) * 3_600_000);
    const slot = (k: number) => new Date(first.getTime() + k * 30 * 60_000).toISOString();
    // Slots 1 and 2 are taken already (one at its start, one within it).
    const [x, y] = await seed(2, 'ready', 'Already on the calendar');
    await publishRequest(s, x!, { at: slot(1) });
    await publishRequest(s, y!, { at: new Date(Date.parse(slot(2)) + 10 * 60_000).toISOString() });
    const [draft] = await seed(1, 'draft');
    const body = { artifact_ids: [ids[0]!, draft!, ...ids.slice(1)], at: first.toISOString(), every_minutes: 30, idempotency_key: newIdempotencyKey() };
    const r = await post('schedule', body);
    expect(r.res.status).toBe(200);
    const result = r.body as unknown as Result;
    expect(result.succeeded).toBe(50);
    expect(result.failed).toBe(1);
    // The draft is refused as a single publish refuses it (403), and takes no slot.
    expect(result.data[1]).toMatchObject({ artifact_id: draft, status: 403, state: null, scheduled_at: null, refusal: { error: { code: 'forbidden' } } });
    const times = result.data.filter((o) => o.refusal === null).map((o) => o.scheduled_at);
    expect(times).toEqual([slot(0), ...Array.from({ length: 49 }, (_, i) => slot(i + 3))]);
    for (const o of result.data.filter((d) => d.refusal === null)) expect(o).toMatchObject({ status: 202, state: 'scheduled' });
    const a = await getArtifact(s, ids[10]!);
    expect(a.schedule?.at).toBe(slot(12)); // ids[1] took slot 3, so ids[k] slot k + 2
    // Replayed: the same answer, nothing scheduled twice.
    const runs = await countRows(s.running.deps.db, 'Run', { kind: 'publish' });
    const again = await post('schedule', body);
    expect(again.res.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(r.body);
    expect(await countRows(s.running.deps.db, 'Run', { kind: 'publish' })).toBe(runs);
    // The inbox counts every waiting draft once for its destination: the scheduled ones by their
    // own destination rows, the others by the pipeline's default, the same account.
    const { counts } = await unwrap(s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: pipeline.id } } }));
    const waiting = counts.by_state.review + counts.by_state.ready + counts.by_state.scheduled + counts.by_state.publish_failed;
    expect(counts.by_state.scheduled).toBeGreaterThanOrEqual(52);
    expect(counts.by_destination).toEqual([expect.objectContaining({ platform: 'mastodon', account_id: expect.stringMatching(/^acc_/), waiting })]);
  });

  it('refuses a first slot in the past with 422 naming body.at, and schedules nothing', async () => {
    const [a] = await seed(1, 'ready');
    const r = await post('schedule', { artifact_ids: [a], at: '2020-01-01T00:00:00Z', every_minutes: 60, idempotency_key: newIdempotencyKey() });
    expect(r.res.status).toBe(422);
    expect(r.body.error?.message).toMatch(/^body\.at is in the past/);
    expect(await stateOf(a!)).toBe('ready');
  });
});

describe('scopes', () => {
  it('bulk transition needs approve and bulk schedule needs publish, as their single operations', async () => {
    const token = async (scopes: string[]) => {
      const r = await rawRequest(s, `${V1}/tokens`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `bulk ${scopes.join('+')}`, scopes }),
      });
      expect(r.res.status).toBe(201);
      return (r.body as unknown as { secret: string }).secret;
    };
    const [a] = await seed(1, 'review');
    const reader = await token(['read', 'draft']);
    const approver = await token(['read', 'approve']);
    const transition = { to: 'ready', artifact_ids: [a], idempotency_key: newIdempotencyKey() };
    const schedule = { artifact_ids: [a], at: new Date(Date.now() + 86_400_000).toISOString(), every_minutes: 60, idempotency_key: newIdempotencyKey() };
    for (const [path, body, tok, scope] of [
      ['transition', transition, reader, 'approve'],
      ['schedule', schedule, approver, 'publish'],
    ] as const) {
      const r = await post(path, body, tok);
      expect(r.res.status).toBe(403);
      expect(r.body.error?.message).toContain(`'${scope}'`);
      expect(r.body.error?.suggested_action).toBe('request_scope');
    }
    expect(await stateOf(a!)).toBe('review');
    const ok = await post('transition', transition, approver);
    expect(ok.res.status).toBe(200);
    expect(await stateOf(a!)).toBe('ready');
  });

  it('with the approval gate on, a publish token schedules only what was approved: the others are 403 approval_required each, and wait in review', async () => {
    const made = await rawRequest(s, `${V1}/tokens`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'bulk publisher', scopes: ['read', 'publish'] }),
    });
    const publisher = (made.body as unknown as { secret: string }).secret;
    expect((await unwrap(s.client().GET(`${V1}/workspace`))).approval_required).toBe(true);
    const [approved, waiting] = await seed(2, 'review', 'Gated bulk');
    await moveArtifact(s, approved!, 'ready');
    const r = await post(
      'schedule',
      {
        artifact_ids: [approved, waiting],
        at: new Date(Date.now() + 2 * 86_400_000).toISOString(),
        every_minutes: 30,
        idempotency_key: newIdempotencyKey(),
      },
      publisher,
    );
    expect(r.res.status).toBe(200);
    const result = r.body as unknown as Result;
    expect(result).toMatchObject({ succeeded: 1, failed: 1 });
    expect(result.data[0]).toMatchObject({ artifact_id: approved, state: 'scheduled', refusal: null });
    expect(result.data[1]).toMatchObject({
      artifact_id: waiting,
      status: 403,
      refusal: { error: { code: 'approval_required', suggested_action: 'request_approval' } },
    });
    expect(await stateOf(waiting!)).toBe('review');
  });
});

describe('the record of who did what', () => {
  it('gives each artifact of a bulk approval and a bulk schedule its own record, and none to a refused one', async () => {
    const ids = await seed(3, 'review', 'Recorded bulk');
    const approved = await post('transition', { to: 'ready', artifact_ids: [...ids, 'art_nope'], idempotency_key: newIdempotencyKey() });
    expect((approved.body as unknown as Result).succeeded).toBe(3);
    const scheduled = await post('schedule', {
      artifact_ids: ids.slice(0, 2),
      at: new Date(Date.now() + 3 * 86_400_000).toISOString(),
      every_minutes: 60,
      idempotency_key: newIdempotencyKey(),
    });
    expect((scheduled.body as unknown as Result).succeeded).toBe(2);
    for (const [i, id] of ids.entries()) {
      const history = await unwrap(s.client().GET(`${V1}/audit-events`, { params: { query: { subject_id: id } } }));
      const actions = history.data.map((e) => e.action).reverse();
      expect(actions).toEqual(i < 2 ? ['artifact.approved', 'artifact.scheduled'] : ['artifact.approved']);
      expect(history.data.every((e) => e.detail?.bulk === true && e.actor.name === 'first-launch token')).toBe(true);
    }
    const nope = await unwrap(s.client().GET(`${V1}/audit-events`, { params: { query: { subject_id: 'art_nope' } } }));
    expect(nope.data).toEqual([]);
  });
});

describe('children', () => {
  it('lists an artifact’s re-drafts, oldest first, a page at a time; 404 for an artifact not in the workspace', async () => {
    const deps = s.running.deps;
    const [parent] = await seed(1, 'review');
    const kids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = deps.ids.id('art');
      const at = new Date(Date.UTC(2026, 10, 1, 12, i));
      await deps.db
        .insertInto('Artifact')
        .values({
          id,
          workspaceId,
          pipelineId: pipeline.id,
          sourcePostId: pipeline.postId,
          parentArtifactId: parent!,
          rootArtifactId: parent!,
          generation: 1,
          ancestors: JSON.stringify([parent]),
          text: `Re-draft ${i}`,
          state: i === 0 ? 'discarded' : 'review',
          createdAt: at,
          updatedAt: at,
        })
        .execute();
      kids.push(id);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await unwrap(s.client().GET(`${V1}/artifacts/{id}/children`, { params: { path: { id: parent! }, query: { limit: 2, cursor } } }));
      expect(page.data.length).toBeLessThanOrEqual(2);
      for (const c of page.data) expect(c.genealogy.parent_artifact_id).toBe(parent);
      seen.push(...page.data.map((c) => c.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(kids);
    const none = await unwrap(s.client().GET(`${V1}/artifacts/{id}/children`, { params: { path: { id: kids[1]! } } }));
    expect(none).toEqual({ data: [], next_cursor: null });
    const other = await s.newWorkspace();
    expect((await rawRequest(s, `${V1}/artifacts/${parent}/children`, { token: other })).res.status).toBe(404);
    // A cursor of another artifact's children is 400.
    const { next_cursor } = await unwrap(s.client().GET(`${V1}/artifacts/{id}/children`, { params: { path: { id: parent! }, query: { limit: 1 } } }));
    expect((await rawRequest(s, `${V1}/artifacts/${kids[1]}/children?cursor=${next_cursor}`)).res.status).toBe(400);
  });
});
