// Two instances on one PostgreSQL database with scheduled publishes coming due at the same
// moment: every artifact is posted exactly once (counted at the fake's wire, before its own
// Idempotency-Key dedupe), whichever instance's worker claims its run; with two destinations
// (Mastodon and Bluesky), exactly once at each. Skipped on SQLite (one instance per database there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { testDbKind } from '../support/database.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { mastodonStatus, startBlueskyFake, startMastodonFake } from '../support/platforms.js';
import { tidFor } from '../../server/platforms/bluesky/adapter.js';
import { findRow, updateRows } from '../support/rows.js';
import { asAccepted, connect, getArtifact, ingest, listAllPosts, publishRequest } from '../support/api.js';
import { waitForRun } from '../support/runs.js';
import { seedArtifact, workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';

const onPg = testDbKind() === 'postgresql';
const N = 30;

describe.skipIf(!onPg)('scheduled publishing on two instances of one PostgreSQL database', () => {
  let a: TestServer;
  let b: TestServer;
  let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
  let bluesky: Awaited<ReturnType<typeof startBlueskyFake>>;

  beforeAll(async () => {
    mastodon = await startMastodonFake({ statuses: [mastodonStatus(1)] });
    bluesky = await startBlueskyFake({ posts: [] });
    const env = { ...outboundEnvFor(mastodon.fake, bluesky.fake), ...bluesky.env, JOB_POLL_MS: '50', WORKER_CONCURRENCY: '4' };
    a = await startTestServer({ env });
    b = await startTestServer({ env, db: a.db });
  });
  afterAll(async () => {
    await b?.running.stop();
    await a?.stop();
    await mastodon?.fake.close();
    await bluesky?.fake.close();
  });

  /**
   * The scheduled runs all come due at one instant, a second from now. Scheduled an hour out and
   * then moved together, so that however slowly the requests go on a loaded machine, no schedule
   * is in the past when it is made and all are due at once.
   */
  async function comeDue(runIds: string[]) {
    const at = new Date(Date.now() + 1000);
    for (const id of runIds) await updateRows(a.running.deps.db, 'Run', { id }, { runAfter: at });
  }

  it('publishes each due artifact exactly once, whichever instance takes it', async () => {
    await connect(a, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    const { pipeline_id } = await ingest(a, mastodon.handle);
    const [post] = await listAllPosts(a, pipeline_id);
    const workspaceId = await workspaceOf(a.running.deps, a.token);
    const texts = Array.from({ length: N }, (_, i) => `Scale-out scheduled post #${i} 🚀 東京 ${'·'.repeat(i % 7)}`);
    const artifacts = [];
    for (const text of texts)
      artifacts.push(await seedArtifact(a.running.deps, { workspaceId, pipelineId: pipeline_id, postId: post.id, state: 'ready', text }));
    const due = new Date(Date.now() + 3_600_000).toISOString();
    // Scheduled through either instance, all for the same instant: the queue is the database's.
    const runs = await Promise.all(artifacts.map(async (art, i) => asAccepted(await unwrap(publishRequest(i % 2 ? b : a, art.id, { at: due }))).run.run_id));
    await comeDue(runs);
    const finished = await Promise.all(runs.map((id) => waitForRun(a.running.deps, id, { timeoutMs: 60_000 })));
    expect(finished.every((r) => r.status === 'succeeded')).toBe(true);
    const wire = mastodon.fake.requests
      .filter((r) => r.method === 'POST' && r.url === '/api/v1/statuses')
      .map((r) => JSON.parse(r.body.toString()).status as string);
    for (const text of texts) expect(wire.filter((t) => t === text)).toHaveLength(1);
    // Each run made one attempt: no run was claimed twice.
    expect(finished.every((r) => r.attempts === 1)).toBe(true);
    const id = JSON.parse(finished[0].input).artifact_id as string;
    expect((await getArtifact(b, id)).state).toBe('published');
  });

  it('publishes a multi-destination artifact exactly once per destination, scheduled or published from both instances at once', async () => {
    await connect(a, { platform: 'bluesky', handle: bluesky.state.handle, auth_material: bluesky.state.appPassword });
    const { pipeline_id } = await ingest(a, mastodon.handle);
    const [post] = await listAllPosts(a, pipeline_id);
    const workspaceId = await workspaceOf(a.running.deps, a.token);
    const to = [(await findRow(a.running.deps.db, 'Account', { platform: 'mastodon' })).id, { platform: 'bluesky' as const, handle: bluesky.state.handle }];
    const texts = Array.from({ length: 10 }, (_, i) => `Two destinations, two instances #${i} 🦣🦋 𝄞 ${'·'.repeat(i % 5)}`);
    const artifacts = [];
    for (const text of texts)
      artifacts.push(await seedArtifact(a.running.deps, { workspaceId, pipelineId: pipeline_id, postId: post.id, state: 'ready', text }));
    const due = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await Promise.all(
      artifacts.slice(0, 6).map(async (art, i) => asAccepted(await unwrap(publishRequest(i % 2 ? b : a, art.id, { at: due, destinations: to }))).run.run_id),
    );
    await comeDue(scheduled);
    // The others published now, each from both instances at the same moment: one request wins, the other is 409.
    const raced = await Promise.all(
      artifacts.slice(6).map(async (art) => {
        const answers = await Promise.all([a, b].map((server) => publishRequest(server, art.id, { destinations: to })));
        expect(answers.map((r) => r.response.status).sort()).toEqual([202, 409]);
        return asAccepted(answers.find((r) => r.response.status === 202)!.data!).run.run_id;
      }),
    );
    const finished = await Promise.all([...scheduled, ...raced].map((id) => waitForRun(a.running.deps, id, { timeoutMs: 60_000 })));
    expect(finished.every((r) => r.status === 'succeeded')).toBe(true);
    const wire = mastodon.fake.requests
      .filter((r) => r.method === 'POST' && r.url === '/api/v1/statuses')
      .map((r) => JSON.parse(r.body.toString()).status as string);
    for (const text of texts) expect(wire.filter((t) => t === text)).toHaveLength(1);
    const creates = bluesky.fake.requests
      .filter((r) => r.url === '/xrpc/com.atproto.repo.createRecord')
      .map((r) => (JSON.parse(r.body.toString()) as { rkey: string }).rkey);
    for (const art of artifacts) expect(creates.filter((k) => k === tidFor({ id: art.id, createdAt: art.createdAt, position: 0 }))).toHaveLength(1);
    for (const art of artifacts) {
      const got = await getArtifact(b, art.id);
      expect(got.state).toBe('published');
      expect(got.destinations.map((d) => [d.platform, d.state, d.parts.length])).toEqual([
        ['mastodon', 'live', 1],
        ['bluesky', 'live', 1],
      ]);
    }
  });
});
