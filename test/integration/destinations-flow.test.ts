// The README's walkthrough "From your downloaded archive (or a feed) to a published post", as a
// person does it (issue 23): the downloaded X archive ZIP uploaded, a Mastodon and a Bluesky
// account connected, a pipeline reading the archive that publishes to both, a draft with a
// variant for each, approved and published to both: each account gets its own platform's text,
// once (the fakes are real local servers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap, type Schemas } from '../../clients/typescript/src/index.js';
import { connect, draftAndWait, getArtifact, listAllPosts, moveArtifact, publishAndWait, rawRequest, V1 } from '../support/api.js';
import { writeZip, xArchive } from '../support/exports.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { startBlueskyFake, startMastodonFake } from '../support/platforms.js';
import { expectRunSucceeded } from '../support/runs.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let bluesky: Awaited<ReturnType<typeof startBlueskyFake>>;

beforeAll(async () => {
  mastodon = await startMastodonFake({ statuses: [] });
  bluesky = await startBlueskyFake({ posts: [] });
  s = await startTestServer({ env: { ...outboundEnvFor(mastodon.fake, bluesky.fake), ...bluesky.env, JOB_POLL_MS: '50', JOB_RETRY_BASE_MS: '300' } });
}, 60_000);

afterAll(async () => {
  await s?.stop();
  for (const f of [mastodon?.fake, bluesky?.fake]) await f?.close();
});

describe('from a downloaded archive to posts on Mastodon and Bluesky', () => {
  it('uploads the X archive, connects both accounts, drafts, and publishes to both, each once', async () => {
    // 1. the archive, as X hands it out
    const x = xArchive({ posts: 40, seed: 23 });
    const zip = (await writeZip(x.files))!;
    const qs = new URLSearchParams({ handle: 'my-x', idempotency_key: newIdempotencyKey() });
    const upload = await rawRequest(s, `${V1}/imports?${qs}`, { method: 'POST', headers: { 'Content-Type': 'application/zip' }, body: new Uint8Array(zip) });
    expect(upload.res.status).toBe(201);
    expect((upload.body as unknown as Schemas['Import']).summary.posts).toBe(x.publicPosts.size);

    // 2. the accounts to post to
    const m = await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    const b = await connect(s, { platform: 'bluesky', handle: bluesky.state.handle, auth_material: bluesky.state.appPassword });

    // 3. a pipeline reading the archive, publishing to both by default
    const started = await unwrap(
      s.client().POST(`${V1}/pipelines/from-intent`, {
        body: {
          handle: 'my-x',
          intent: 'The best of my old posts, on the accounts I use now',
          destinations: [
            { platform: 'mastodon', handle: mastodon.handle },
            { platform: 'bluesky', handle: bluesky.state.handle },
          ],
          idempotency_key: newIdempotencyKey(),
        },
      }),
    );
    await expectRunSucceeded(s.running.deps, started.run_id);
    const pipeline = await unwrap(s.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id: started.pipeline_id } } }));
    expect(pipeline.destinations.map((d) => d.account_id)).toEqual([m.account.id, b.account.id]);

    // 4. a draft with a variant for each platform
    const posts = await listAllPosts(s, started.pipeline_id);
    const source = [...posts].sort((p, q) => q.text.length - p.text.length)[0]!;
    const { artifact } = await draftAndWait(s, source.id, { targets: ['mastodon', 'bluesky'] });
    expect(artifact.state).toBe('review');
    expect(artifact.destinations).toEqual([]);

    // 5. approved, published to both
    await moveArtifact(s, artifact.id, 'ready');
    const { artifact: done, run } = await publishAndWait(s, artifact.id);
    expect(run?.status).toBe('succeeded');
    expect(done.state).toBe('published');
    expect(done.destinations.map((d) => [d.platform, d.handle, d.state])).toEqual([
      ['mastodon', mastodon.handle, 'live'],
      ['bluesky', bluesky.state.handle, 'live'],
    ]);
    const variant = (platform: string) => done.variants.find((v) => v.platform === platform)!.parts.map((p) => p.text);
    // Each account got its own platform's thread, once.
    expect(mastodon.state.posted.map((p) => p.text)).toEqual(variant('mastodon'));
    expect([...bluesky.state.records.values()].map((r) => r.text)).toEqual(variant('bluesky'));
    expect(done.destinations[0].parts).toHaveLength(variant('mastodon').length);
    expect(done.destinations[1].parts).toHaveLength(variant('bluesky').length);
    expect(done.published_url).toBe(done.destinations[0].url);
    expect((await getArtifact(s, artifact.id)).destinations.every((d) => d.url?.startsWith('https://'))).toBe(true);
  });
});
