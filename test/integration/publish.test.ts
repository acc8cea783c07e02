// Publishing through the pipeline's adapter, off the request path: 202 with a `publish` run that
// posts upstream exactly once per artifact (replays, concurrent publishes with other keys), the
// spec's credential errors (before queuing, and while the run posts), upstream failures retried
// by the run, and platforms that cannot post (200 at once).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { refusal } from '../support/errors.js';
import { tidFor } from '../../server/platforms/bluesky/adapter.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { mastodonStatus, startBlueskyFake, startMastodonFake } from '../support/platforms.js';
import { asAccepted, connect, getArtifact, ingest, ingestArchive, listAllPosts, publishRequest, startPipeline, V1 } from '../support/api.js';
import { waitForRun } from '../support/runs.js';
import { seedArtifact, workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { findRow, findRows } from '../support/rows.js';

let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let bluesky: Awaited<ReturnType<typeof startBlueskyFake>>;
let mastodonPipeline: { id: string; postId: string };
let workspaceId: string;
/** A second instance whose token gets revoked. */
let revoking: Awaited<ReturnType<typeof startMastodonFake>>;

beforeAll(async () => {
  mastodon = await startMastodonFake({ statuses: [mastodonStatus(1)] });
  bluesky = await startBlueskyFake({
    posts: [{ rkey: '3kaaa', text: 'A post', createdAt: '2026-10-02T10:00:00.000Z', likeCount: 1, repostCount: 0, replyCount: 0, quoteCount: 0 }],
  });
  revoking = await startMastodonFake({ username: 'lin', token: 'lin-token-0123456789', statuses: [mastodonStatus(1)] });
  s = await startTestServer({
    env: { ...outboundEnvFor(mastodon.fake, bluesky.fake, revoking.fake), ...bluesky.env, JOB_POLL_MS: '50', JOB_RETRY_BASE_MS: '50' },
  });
  workspaceId = await workspaceOf(s.running.deps, s.token);
  await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
  const { pipeline_id } = await ingest(s, mastodon.handle);
  mastodonPipeline = { id: pipeline_id, postId: (await listAllPosts(s, pipeline_id))[0].id };
});

afterAll(async () => {
  await s?.stop();
  for (const f of [mastodon?.fake, bluesky?.fake, revoking?.fake]) await f?.close();
});

const artifact = (pipeline: { id: string; postId: string }, state: string, text = 'Importer v2.3: 4x faster on big CSVs. Notes in the thread.') =>
  seedArtifact(s.running.deps, { workspaceId, pipelineId: pipeline.id, postId: pipeline.postId, state, text });

const publish = (id: string, key = newIdempotencyKey()) =>
  s.client().POST(`${V1}/artifacts/{id}/publish`, { params: { path: { id } }, body: { idempotency_key: key } });

/** Publishes, expects 202, waits for the run; the run and the artifact as they ended. */
async function published(id: string, key = newIdempotencyKey()) {
  const accepted = asAccepted(await unwrap(publish(id, key)));
  const run = await waitForRun(s.running.deps, accepted.run.run_id);
  return { accepted, run, artifact: await getArtifact(s, id) };
}

describe('mastodon', () => {
  it('answers 202 with a publish run that posts the text once; a replay returns the same run; another key is 409 and posts nothing', async () => {
    const a = await artifact(mastodonPipeline, 'ready');
    const key = newIdempotencyKey();
    const res = await publish(a.id, key);
    expect(res.response.status).toBe(202);
    const accepted = asAccepted(res.data!);
    expect(accepted.artifact).toMatchObject({ id: a.id, state: 'publishing', publish_run_id: accepted.run.run_id });
    expect(accepted.run).toMatchObject({ kind: 'publish', status: 'queued' });
    const run = await waitForRun(s.running.deps, accepted.run.run_id);
    const first = await getArtifact(s, a.id);
    expect(run.status).toBe('succeeded');
    expect(first.state).toBe('published');
    const posted = mastodon.state.posted.filter((p) => p.text === a.text);
    expect(posted).toHaveLength(1);
    expect(posted[0].idempotencyKey).toBe(`cp-${a.id}`);
    expect(first.published_url).toBe(`https://mastodon.example/@ada/${posted[0].id}`);
    expect(first.published_parts).toEqual([expect.objectContaining({ position: 1, external_id: posted[0].id, url: first.published_url })]);
    const ran = await unwrap(s.client().GET(`${V1}/runs/{id}`, { params: { path: { id: accepted.run.run_id } } }));
    expect(ran).toMatchObject({ kind: 'publish', status: 'succeeded' });

    const replay = await publish(a.id, key);
    expect(replay.response.status).toBe(202);
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data).toEqual(accepted);
    const again = await refusal(unwrap(publish(a.id)));
    expect(again.code).toBe('state_conflict');
    expect(mastodon.state.posted.filter((p) => p.text === a.text)).toHaveLength(1);
  });

  it('posts once when several publishes with different keys race', async () => {
    const a = await artifact(mastodonPipeline, 'review', 'Racing publishes should post once.');
    const results = await Promise.all(Array.from({ length: 5 }, () => publish(a.id)));
    const ok = results.filter((r) => r.response.status === 202);
    expect(ok).toHaveLength(1);
    await waitForRun(s.running.deps, asAccepted(ok[0].data!).run.run_id);
    for (const r of results.filter((x) => x.response.status !== 202)) {
      expect(r.response.status).toBe(409);
      expect(r.error?.error.code).toBe('state_conflict');
    }
    // Counted at the wire, not after the fake's own Idempotency-Key dedupe: one POST reached it.
    const posts = mastodon.fake.requests.filter((r) => r.method === 'POST' && r.url === '/api/v1/statuses' && r.body.toString().includes(a.text));
    expect(posts).toHaveLength(1);
  });

  it('retries the run when the instance fails (503), then publishes once', async () => {
    const a = await artifact(mastodonPipeline, 'ready', 'Published after a hiccup.');
    mastodon.state.failNext = 1;
    mastodon.state.failStatus = 503;
    const { run, artifact: done } = await published(a.id);
    expect(run.status).toBe('succeeded');
    expect(run.attempts).toBe(2);
    expect(done.state).toBe('published');
    expect(mastodon.state.posted.filter((p) => p.text === a.text)).toHaveLength(1);
  });

  it('fails the run for good after 5 attempts; the artifact is publish_failed and a later publish posts it', async () => {
    const a = await artifact(mastodonPipeline, 'ready', 'Published after an outage.');
    mastodon.state.refuseText = 'after an outage';
    mastodon.state.refuseStatus = 503;
    const { run, artifact: failed } = await published(a.id);
    mastodon.state.refuseText = null;
    expect(run).toMatchObject({ status: 'failed', errorCode: 'backend_unavailable', attempts: 5 });
    expect(run.errorMessage).toContain('None of the 1 part is live');
    expect(failed).toMatchObject({ state: 'publish_failed', publish_error: { code: 'backend_unavailable' }, published_parts: [] });
    const again = await published(a.id);
    expect(again.artifact).toMatchObject({ state: 'published', publish_error: null });
    expect(mastodon.state.posted.filter((p) => p.text === a.text)).toHaveLength(1);
  });

  it('keeps the state rules: a draft is 403, and nothing is posted', async () => {
    const a = await artifact(mastodonPipeline, 'draft', 'Not yet.');
    const err = await refusal(unwrap(publish(a.id)));
    expect(err.status).toBe(403);
    expect(mastodon.state.posted.some((p) => p.text === a.text)).toBe(false);
  });
});

describe('credentials', () => {
  it('answers 424 credential_missing with connect_account and the platform when the pipeline has no account', async () => {
    const handle = `@nobody@${mastodon.fake.host}`;
    const { pipeline_id, run_id } = await startPipeline(s, handle);
    await waitForRun(s.running.deps, run_id);
    const [post] = await findRows(s.running.deps.db, 'SourcePost', { pipelineId: mastodonPipeline.id });
    // A post of another pipeline stands in as the source: what matters is this artifact's pipeline.
    const a = await seedArtifact(s.running.deps, { workspaceId, pipelineId: pipeline_id, postId: post.id, state: 'ready' });
    const res = await publish(a.id);
    expect(res.response.status).toBe(424);
    expect(res.error?.error).toMatchObject({
      code: 'credential_missing',
      suggested_action: 'connect_account',
      suggested_endpoint: `POST ${V1}/accounts/connect`,
      platform: 'mastodon',
    });
  });

  it('answers 424 credential_dead when the platform refuses the token, and marks the account dead', async () => {
    const other = revoking;
    await connect(s, { platform: 'mastodon', handle: other.handle, auth_material: other.state.token });
    const { pipeline_id } = await ingest(s, other.handle);
    const [post] = await listAllPosts(s, pipeline_id);
    const a = await artifact({ id: pipeline_id, postId: post.id }, 'ready');
    other.state.revoked = true;
    // Known good when queued: the run finds out, fails, and marks the account dead.
    const { run, artifact: failed } = await published(a.id);
    expect(run).toMatchObject({ status: 'failed', errorCode: 'credential_dead' });
    expect(failed).toMatchObject({ state: 'publish_failed', publish_error: { code: 'credential_dead' } });
    expect((await findRow(s.running.deps.db, 'Account', { handle: other.handle })).status).toBe('dead');
    const event = (await findRows(s.running.deps.db, 'Event', { type: 'artifact.publish_failed' })).find((e) => JSON.parse(e.data).artifact_id === a.id);
    expect(JSON.parse(event!.data)).toMatchObject({ artifact_id: a.id, run_id: run.id, error: { code: 'credential_dead' }, published_urls: [] });
    // Dead now: refused before any call upstream.
    const calls = other.fake.requests.length;
    const again = await publish(a.id);
    expect(again.error?.error.code).toBe('credential_dead');
    expect(other.fake.requests.length).toBe(calls);
  });
});

describe('bluesky, rss and archive', () => {
  it('creates a Bluesky post record under a key fixed for the artifact, and finds it again rather than posting twice', async () => {
    await connect(s, { platform: 'bluesky', handle: bluesky.state.handle, auth_material: bluesky.state.appPassword });
    const { pipeline_id } = await ingest(s, bluesky.state.handle);
    const pipeline = { id: pipeline_id, postId: (await listAllPosts(s, pipeline_id))[0].id };
    const a = await artifact(pipeline, 'ready', 'Short enough for Bluesky.');
    const rkey = tidFor({ id: a.id, createdAt: a.createdAt });
    expect(rkey).toMatch(/^[2-7a-z]{13}$/);
    // An earlier attempt got through upstream but was lost before we recorded it.
    bluesky.state.records.set(rkey, { text: a.text });
    const { artifact: done } = await published(a.id);
    expect(done.published_url).toBe(`https://bsky.app/profile/${bluesky.state.handle}/post/${rkey}`);
    expect(bluesky.state.records.size).toBe(1);

    const b = await artifact(pipeline, 'ready', 'A second post.');
    const { artifact: second } = await published(b.id);
    expect(second.state).toBe('published');
    const created = bluesky.fake.requests.filter((r) => r.url === '/xrpc/com.atproto.repo.createRecord').map((r) => JSON.parse(r.body.toString()));
    expect(created.at(-1)).toMatchObject({
      repo: bluesky.state.did,
      collection: 'app.bsky.feed.post',
      rkey: tidFor({ id: b.id, createdAt: b.createdAt }),
      record: { $type: 'app.bsky.feed.post', text: 'A second post.' },
    });
  });

  it('refuses a text over 300 characters for Bluesky with 409, before calling it', async () => {
    const pipelineId = (await findRow(s.running.deps.db, 'Pipeline', { handle: bluesky.state.handle })).id;
    const [post] = await listAllPosts(s, pipelineId);
    const a = await artifact({ id: pipelineId, postId: post.id }, 'ready', 'x'.repeat(301));
    const calls = bluesky.state.createCalls;
    const err = await refusal(unwrap(publish(a.id)));
    expect(err.status).toBe(409);
    expect(err.message).toContain('300');
    expect(bluesky.state.createCalls).toBe(calls);
  });

  it('refuses to publish an archive artifact with no destination, and posts it to the account it names', async () => {
    const { pipeline_id } = await ingestArchive(s, 'linkedin-Shares.csv', 'ada-li');
    const [post] = await listAllPosts(s, pipeline_id);
    const a = await artifact({ id: pipeline_id, postId: post.id }, 'ready');
    // Nothing to post to: not `published` with nothing posted, a 409 naming what is missing.
    const res = await publish(a.id);
    expect(res.response.status).toBe(409);
    expect(res.error).toMatchObject({ error: { code: 'state_conflict', suggested_action: 'set_destinations' } });
    expect((await findRows(s.running.deps.db, 'Event', { type: 'artifact.published' })).some((e) => JSON.parse(e.data).artifact_id === a.id)).toBe(false);
    const run = await unwrap(publishRequest(s, a.id, { destinations: [{ platform: 'bluesky', handle: bluesky.state.handle }] }));
    const done = await waitForRun(s.running.deps, asAccepted(run).run.run_id);
    expect(done.status).toBe('succeeded');
    const after = await getArtifact(s, a.id);
    expect(after).toMatchObject({ state: 'published', destinations: [expect.objectContaining({ platform: 'bluesky', state: 'live' })] });
    expect(after.published_url).toMatch(/^https:\/\/bsky\.app\/profile\//);
  });
});
