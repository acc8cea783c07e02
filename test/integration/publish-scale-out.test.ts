// Two instances on one PostgreSQL database with scheduled publishes coming due at the same
// moment: every artifact is posted exactly once (counted at the fake's wire, before its own
// Idempotency-Key dedupe), whichever instance's worker claims its run. Skipped on SQLite (one
// instance per database there).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { testDbKind } from '../support/database.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { mastodonStatus, startMastodonFake } from '../support/platforms.js';
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

  beforeAll(async () => {
    mastodon = await startMastodonFake({ statuses: [mastodonStatus(1)] });
    const env = { ...outboundEnvFor(mastodon.fake), JOB_POLL_MS: '50', WORKER_CONCURRENCY: '4' };
    a = await startTestServer({ env });
    b = await startTestServer({ env, db: a.db });
  });
  afterAll(async () => {
    await b?.running.stop();
    await a?.stop();
    await mastodon?.fake.close();
  });

  it('publishes each due artifact exactly once, whichever instance takes it', async () => {
    await connect(a, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    const { pipeline_id } = await ingest(a, mastodon.handle);
    const [post] = await listAllPosts(a, pipeline_id);
    const workspaceId = await workspaceOf(a.running.deps, a.token);
    const texts = Array.from({ length: N }, (_, i) => `Scale-out scheduled post #${i} 🚀 東京 ${'·'.repeat(i % 7)}`);
    const artifacts = [];
    for (const text of texts)
      artifacts.push(await seedArtifact(a.running.deps, { workspaceId, pipelineId: pipeline_id, postId: post.id, state: 'ready', text }));
    const due = new Date(Date.now() + 3000).toISOString();
    // Scheduled through either instance, all for the same instant: the queue is the database's.
    const runs = await Promise.all(artifacts.map(async (art, i) => asAccepted(await unwrap(publishRequest(i % 2 ? b : a, art.id, { at: due }))).run.run_id));
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
});
