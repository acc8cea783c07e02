// Scheduled publishing through the API: refusals of bad times (past, DST gap and overlap,
// unknown zone) with 422 naming the field and nothing changed; schedule, list, reschedule and
// unschedule; a schedule that comes due publishes exactly once, also across a restart of the
// server; a schedule that comes due while the account is dead fails visibly (artifact, run,
// event, inbox, diagnose); replays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { mastodonStatus, startMastodonFake } from '../support/platforms.js';
import { asAccepted, connect, getArtifact, ingest, listAllPosts, moveArtifact, publishRequest, recordedEvents, V1 } from '../support/api.js';
import { countRows, findRow, findRows, updateRows } from '../support/rows.js';
import { waitForRun } from '../support/runs.js';
import { seedArtifact, workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';

let db: TestDatabase;
let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let dying: Awaited<ReturnType<typeof startMastodonFake>>;
let workspaceId: string;
let pipeline: { id: string; postId: string };
const env = () => ({ ...outboundEnvFor(mastodon.fake, dying.fake), JOB_POLL_MS: '50', JOB_RETRY_BASE_MS: '50' });

beforeAll(async () => {
  mastodon = await startMastodonFake({ statuses: [mastodonStatus(1)] });
  dying = await startMastodonFake({ username: 'lin', token: 'lin-token-0123456789', statuses: [mastodonStatus(2)] });
  db = await createTestDatabase();
  s = await startTestServer({ db, env: env() });
  workspaceId = await workspaceOf(s.running.deps, s.token);
  await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
  const { pipeline_id } = await ingest(s, mastodon.handle);
  pipeline = { id: pipeline_id, postId: (await listAllPosts(s, pipeline_id))[0].id };
});

afterAll(async () => {
  await s?.running.stop();
  await db?.drop();
  for (const f of [mastodon?.fake, dying?.fake]) await f?.close();
});

const ready = (text: string, p = pipeline, state = 'ready') => seedArtifact(s.running.deps, { workspaceId, pipelineId: p.id, postId: p.postId, state, text });
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const schedule = (id: string) => unwrap(s.client().GET(`${V1}/pipelines/{id}/schedule`, { params: { path: { id } } }));
const postsOf = (text: string) =>
  mastodon.fake.requests.filter((r) => r.method === 'POST' && r.url === '/api/v1/statuses' && JSON.parse(r.body.toString()).status === text).length;

describe('refused times', () => {
  it.each([
    [{ at: '2020-01-01T00:00:00Z' }, /^body\.at is in the past/],
    [{ at: '2030-01-01T09:00:00' }, /^body\.at .*offset/],
    [{ local_time: '2030-03-31T02:30', time_zone: 'Europe/Paris' }, /^body\.local_time 2030-03-31T02:30 does not exist in Europe\/Paris/],
    [{ local_time: '2030-10-27T02:30', time_zone: 'Europe/Paris' }, /^body\.local_time 2030-10-27T02:30 occurs twice/],
    [{ local_time: '2030-10-27T02:30', time_zone: 'Europe/Paris', utc_offset: '+05:00' }, /^body\.utc_offset/],
    [{ local_time: '2030-12-01T09:30', time_zone: 'Europe/Atlantis' }, /^body\.time_zone "Europe\/Atlantis"/],
    [{ local_time: '2030-12-01T09:30' }, /^body\.time_zone is required/],
  ])('%j is 422 naming the field, and changes nothing', async (body, message) => {
    const a = await ready(`Refused time ${JSON.stringify(body)}`);
    const runs = await countRows(s.running.deps.db, 'Run', { kind: 'publish' });
    const res = await publishRequest(s, a.id, body);
    expect(res.response.status).toBe(422);
    expect(res.error?.error).toMatchObject({ code: 'validation_failed' });
    expect(res.error?.error.message).toMatch(message);
    expect((await getArtifact(s, a.id)).state).toBe('ready');
    expect(await countRows(s.running.deps.db, 'Run', { kind: 'publish' })).toBe(runs);
  });

  it('keeps the state rules for a scheduled publish: a draft is 403, a discarded artifact 409', async () => {
    const draft = await ready('Not written yet', pipeline, 'draft');
    expect((await publishRequest(s, draft.id, { at: inMs(3_600_000) })).response.status).toBe(403);
    const gone = await ready('Discarded', pipeline, 'discarded');
    expect((await publishRequest(s, gone.id, { at: inMs(3_600_000) })).response.status).toBe(409);
  });
});

describe('scheduling', () => {
  it('schedules at a local time in a zone, lists it, shows it in the inbox, reschedules and unschedules it', async () => {
    const a = await ready('Scheduled for Tokyo morning 🌅 東京');
    // Two hours from now, written as the wall-clock time in Tokyo (UTC+9, no DST).
    const due = new Date(Math.ceil((Date.now() + 2 * 3_600_000) / 60_000) * 60_000);
    const local = new Date(due.getTime() + 9 * 3_600_000).toISOString().slice(0, 16);
    const key = newIdempotencyKey();
    const res = await publishRequest(s, a.id, { idempotency_key: key, local_time: local, time_zone: 'Asia/Tokyo' });
    expect(res.response.status).toBe(202);
    const accepted = asAccepted(res.data!);
    expect(accepted.artifact).toMatchObject({
      state: 'scheduled',
      schedule: { at: due.toISOString(), local_time: local, time_zone: 'Asia/Tokyo' },
      publish_run_id: accepted.run.run_id,
    });
    expect(accepted.run).toMatchObject({ kind: 'publish', status: 'queued' });
    expect((await findRow(s.running.deps.db, 'Run', { id: accepted.run.run_id })).runAfter.toISOString()).toBe(due.toISOString());
    // A replay answers the same.
    const replay = await publishRequest(s, a.id, { idempotency_key: key, local_time: local, time_zone: 'Asia/Tokyo' });
    expect(replay.data).toEqual(accepted);

    const listed = await schedule(pipeline.id);
    expect(listed.data.map((x) => x.id)).toContain(a.id);
    const inbox = await unwrap(s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: pipeline.id } } }));
    expect(inbox.data.find((i) => i.artifact_id === a.id)).toMatchObject({
      id: `scheduled_publish:${a.id}`,
      kind: 'scheduled_publish',
      priority: 70,
      created_at: due.toISOString(),
      suggested_action: 'fetch_artifact',
    });
    const scheduled = (await recordedEvents(s, 'artifact.scheduled')).filter((e) => e.data.artifact_id === a.id);
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0].data).toMatchObject({ run_id: accepted.run.run_id, scheduled_at: due.toISOString(), pipeline_id: pipeline.id });

    // Reschedule: publish again with another time; the old run is cancelled.
    const later = new Date(due.getTime() + 3_600_000).toISOString();
    const moved = asAccepted(await unwrap(publishRequest(s, a.id, { at: later })));
    expect(moved.artifact.schedule).toEqual({ at: later, local_time: null, time_zone: null });
    expect(moved.run.run_id).not.toBe(accepted.run.run_id);
    expect(await findRow(s.running.deps.db, 'Run', { id: accepted.run.run_id })).toMatchObject({ status: 'failed', errorCode: 'rescheduled' });
    expect((await schedule(pipeline.id)).data.filter((x) => x.id === a.id)).toHaveLength(1);

    // Unschedule: back to ready, the run cancelled; a second unschedule is 409.
    const back = await unwrap(s.client().DELETE(`${V1}/artifacts/{id}/schedule`, { params: { path: { id: a.id } } }));
    expect(back).toMatchObject({ state: 'ready', schedule: null });
    expect(await findRow(s.running.deps.db, 'Run', { id: moved.run.run_id })).toMatchObject({ status: 'failed', errorCode: 'unscheduled' });
    expect((await schedule(pipeline.id)).data.some((x) => x.id === a.id)).toBe(false);
    const again = await s.client().DELETE(`${V1}/artifacts/{id}/schedule`, { params: { path: { id: a.id } } });
    expect(again.response.status).toBe(409);
    expect(postsOf(a.text)).toBe(0);
  });

  it('of several reschedules racing, one wins; the artifact keeps exactly one queued run', async () => {
    const a = await ready('Rescheduled by five agents at once');
    asAccepted(await unwrap(publishRequest(s, a.id, { at: inMs(3_600_000) })));
    const results = await Promise.all([1, 2, 3, 4, 5].map((h) => publishRequest(s, a.id, { at: inMs(h * 7_200_000) })));
    const won = results.filter((r) => r.response.status === 202);
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((x) => x.response.status !== 202)) expect(r.response.status).toBe(409);
    const queued = (await findRows(s.running.deps.db, 'Run', { kind: 'publish', status: 'queued' })).filter((r) => JSON.parse(r.input).artifact_id === a.id);
    expect(queued).toHaveLength(1);
    expect((await getArtifact(s, a.id)).publish_run_id).toBe(queued[0].id);
    await unwrap(s.client().DELETE(`${V1}/artifacts/{id}/schedule`, { params: { path: { id: a.id } } }));
  });

  it('discarding a scheduled artifact cancels its queued run: nothing goes out at the time, the schedule no longer lists it', async () => {
    const a = await ready('Scheduled, then thrown away 🗑️');
    const accepted = asAccepted(await unwrap(publishRequest(s, a.id, { at: inMs(1000) })));
    const gone = await moveArtifact(s, a.id, 'discarded');
    expect(gone).toMatchObject({ state: 'discarded', schedule: null });
    expect(await findRow(s.running.deps.db, 'Run', { id: accepted.run.run_id })).toMatchObject({ status: 'failed', errorCode: 'discarded' });
    expect((await schedule(pipeline.id)).data.some((x) => x.id === a.id)).toBe(false);
    await new Promise((r) => setTimeout(r, 1500));
    expect(postsOf(a.text)).toBe(0);
    expect((await getArtifact(s, a.id)).state).toBe('discarded');
    // Final: publishing it now is 409.
    expect((await publishRequest(s, a.id)).response.status).toBe(409);
  });

  it('publishes once when the time comes', async () => {
    const a = await ready('Goes out on time ⏰ (once)');
    const accepted = asAccepted(await unwrap(publishRequest(s, a.id, { at: inMs(1200) })));
    expect(accepted.artifact.state).toBe('scheduled');
    const run = await waitForRun(s.running.deps, accepted.run.run_id);
    expect(run.status).toBe('succeeded');
    expect(run.startedAt!.getTime()).toBeGreaterThanOrEqual(new Date(accepted.artifact.schedule!.at).getTime());
    const done = await getArtifact(s, a.id);
    expect(done).toMatchObject({ state: 'published', schedule: null });
    expect(postsOf(a.text)).toBe(1);
    expect((await recordedEvents(s, 'artifact.published')).filter((e) => e.data.artifact_id === a.id)).toHaveLength(1);
  });

  it('fails visibly when the schedule comes due while the account is dead: artifact, run, event, inbox, diagnose', async () => {
    await connect(s, { platform: 'mastodon', handle: dying.handle, auth_material: dying.state.token });
    const { pipeline_id } = await ingest(s, dying.handle);
    const p = { id: pipeline_id, postId: (await listAllPosts(s, pipeline_id))[0].id };
    const a = await ready('Due while the account is dead', p);
    const accepted = asAccepted(await unwrap(publishRequest(s, a.id, { at: inMs(1500) })));
    // Between scheduling and the due time, the platform refuses the token (revoked).
    dying.state.revoked = true;
    const run = await waitForRun(s.running.deps, accepted.run.run_id);
    expect(run).toMatchObject({ status: 'failed', errorCode: 'credential_dead' });
    const failed = await getArtifact(s, a.id);
    expect(failed).toMatchObject({ state: 'publish_failed', publish_error: { code: 'credential_dead' }, published_parts: [] });
    expect((await findRow(s.running.deps.db, 'Account', { handle: dying.handle })).status).toBe('dead');
    const events = (await recordedEvents(s, 'artifact.publish_failed')).filter((e) => e.data.artifact_id === a.id);
    expect(events).toHaveLength(1);
    const inbox = await unwrap(s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: p.id } } }));
    expect(inbox.data.find((i) => i.id === `flagged_anomaly:publish_failed:${a.id}`)).toMatchObject({
      kind: 'flagged_anomaly',
      artifact_id: a.id,
      anomaly: { code: 'publish_failed' },
      suggested_action: 'connect_account',
    });
    const report = await unwrap(s.client().GET(`${V1}/pipelines/{id}/diagnose`, { params: { path: { id: p.id } } }));
    expect(report.issues.find((i) => i.code === 'publish_failed')).toMatchObject({ severity: 'error', suggested_action: 'connect_account' });
    expect(report.status).toBe('unhealthy');

    // A failed publish can be discarded: the inbox and diagnose stop flagging it.
    const dropped = await moveArtifact(s, a.id, 'discarded');
    expect(dropped).toMatchObject({ state: 'discarded', publish_error: null });
    const after = await unwrap(s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id: p.id } } }));
    expect(after.data.some((i) => i.id === `flagged_anomaly:publish_failed:${a.id}`)).toBe(false);
    const report2 = await unwrap(s.client().GET(`${V1}/pipelines/{id}/diagnose`, { params: { path: { id: p.id } } }));
    expect(report2.issues.some((i) => i.code === 'publish_failed' && i.message.includes(a.id))).toBe(false);

    // Another schedule on the dead account is refused at once (424), nothing queued.
    const b = await ready('Refused on a dead account', p);
    const res = await publishRequest(s, b.id, { at: inMs(60_000) });
    expect(res.response.status).toBe(424);
    expect((await getArtifact(s, b.id)).state).toBe('ready');
  });

  it('a schedule that comes due while the server is stopped publishes once after the restart', async () => {
    const a = await ready('Due during a restart 🔁');
    const accepted = asAccepted(await unwrap(publishRequest(s, a.id, { at: inMs(1500) })));
    await s.running.stop();
    await new Promise((r) => setTimeout(r, 2000));
    expect(postsOf(a.text)).toBe(0);
    s = await startTestServer({ db, env: env() });
    const run = await waitForRun(s.running.deps, accepted.run.run_id);
    expect(run.status).toBe('succeeded');
    expect((await getArtifact(s, a.id)).state).toBe('published');
    expect(postsOf(a.text)).toBe(1);
  });

  it('a publish run interrupted mid-run (its process killed) is taken over after its lease and posts once', async () => {
    const a = await ready('Survives a kill -9 mid-publish');
    const accepted = asAccepted(await unwrap(publishRequest(s, a.id, { at: inMs(60_000) })));
    // What a killed process leaves: the run `running` under a dead worker's expired lease, the artifact publishing.
    await updateRows(
      s.running.deps.db,
      'Run',
      { id: accepted.run.run_id },
      { status: 'running', lockedBy: 'wrk_dead', lockedUntil: new Date(Date.now() - 1000), attempts: 1, runAfter: new Date(Date.now() - 2000) },
    );
    await updateRows(s.running.deps.db, 'Artifact', { id: a.id }, { state: 'publishing' });
    await s.running.stop();
    s = await startTestServer({ db, env: env() });
    const run = await waitForRun(s.running.deps, accepted.run.run_id);
    expect(run.status).toBe('succeeded');
    expect((await getArtifact(s, a.id)).state).toBe('published');
    expect(postsOf(a.text)).toBe(1);
  });
});

describe('the schedule list, paginated (it stopped silently at 1,000)', () => {
  it('pages through 1,005 scheduled artifacts, 300 of them at the same instant: each once, soonest first then by id, next_cursor null at the end', async () => {
    // Seeded 25 at a time (a thousand one-by-one round trips are slow on a loaded PostgreSQL).
    const seeded: string[] = [];
    const base = Date.UTC(2031, 0, 1);
    for (let i = 0; i < 1005; i += 25) {
      const batch = Array.from({ length: Math.min(25, 1005 - i) }, (_, k) => i + k);
      await Promise.all(
        batch.map(async (n) => {
          const a = await ready(`Scheduled ${n} 📅`);
          seeded.push(a.id);
          await updateRows(s.running.deps.db, 'Artifact', { id: a.id }, { state: 'scheduled', scheduledAt: new Date(base + Math.max(0, n - 299) * 60_000) });
        }),
      );
    }
    try {
      const expected = (await findRows(s.running.deps.db, 'Artifact', { pipelineId: pipeline.id, state: 'scheduled' }))
        .sort((x, y) => x.scheduledAt!.getTime() - y.scheduledAt!.getTime() || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
        .map((r) => r.id);
      expect(expected.length).toBeGreaterThan(1000);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const page = await unwrap(s.client().GET(`${V1}/pipelines/{id}/schedule`, { params: { path: { id: pipeline.id }, query: { limit: 100, cursor } } }));
        pages += 1;
        expect(page.data.length).toBeLessThanOrEqual(100);
        seen.push(...page.data.map((a) => a.id));
        if (!page.next_cursor) break;
        cursor = page.next_cursor;
      }
      expect(seen).toEqual(expected);
      expect(pages).toBe(Math.ceil(expected.length / 100));
      // The default page is 20.
      const first = await schedule(pipeline.id);
      expect(first.data.map((a) => a.id)).toEqual(expected.slice(0, 20));
      expect(first.next_cursor).toEqual(expect.any(String));
      // A tampered cursor, or one of another list, is 400.
      const tampered = await s.client().GET(`${V1}/pipelines/{id}/schedule`, {
        params: { path: { id: pipeline.id }, query: { cursor: `${first.next_cursor!.slice(0, -2)}xx` } },
      });
      expect(tampered.response.status).toBe(400);
      const posts = await unwrap(s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: pipeline.id }, query: { limit: 1 } } }));
      if (posts.next_cursor) {
        const foreign = await s.client().GET(`${V1}/pipelines/{id}/schedule`, { params: { path: { id: pipeline.id }, query: { cursor: posts.next_cursor } } });
        expect(foreign.response.status).toBe(400);
      }
    } finally {
      await updateRows(s.running.deps.db, 'Artifact', { id: seeded }, { state: 'discarded', scheduledAt: null });
    }
  }, 180_000);
});
