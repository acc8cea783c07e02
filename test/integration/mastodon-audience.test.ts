// The audience of statuses read through the Mastodon API. The account's own token sees every
// status it wrote, direct messages and followers-only ones included: a direct message is never
// ingested, a followers-only status keeps its audience (so publishing a draft of it needs
// confirm_non_public), and a status whose audience narrowed since is narrowed on the next ingest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { mastodonStatus, startMastodonFake } from '../support/platforms.js';
import { connect, draftPost, ingest, listAllPosts, publishRequest } from '../support/api.js';
import { expectRunSucceeded } from '../support/runs.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;

beforeAll(async () => {
  mastodon = await startMastodonFake({
    statuses: [
      mastodonStatus(1, { content: '<p>Public: the release is out 🚀</p>' }),
      mastodonStatus(2, { content: '<p>Unlisted: notes for later</p>', visibility: 'unlisted' }),
      mastodonStatus(3, { content: '<p>Followers only: we are hiring before the announcement</p>', visibility: 'private' }),
      mastodonStatus(4, {
        content: '<p><span class="h-card"><a href="https://other.example/@bob">@bob</a></span> a direct message: my phone is 555-0100</p>',
        visibility: 'direct',
      }),
    ],
  });
  s = await startTestServer({ env: { ...outboundEnvFor(mastodon.fake), JOB_POLL_MS: '50' } });
  await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
});

afterAll(async () => {
  await s?.stop();
  await mastodon?.fake.close();
});

describe('mastodon audiences', () => {
  it('never ingests a direct message; a followers-only status keeps its audience and needs confirm_non_public to be published', async () => {
    const { pipeline_id } = await ingest(s, mastodon.handle);
    const posts = await listAllPosts(s, pipeline_id);
    expect(posts.map((p) => [p.text, p.visibility]).sort()).toEqual([
      ['Followers only: we are hiring before the announcement', 'followers'],
      ['Public: the release is out 🚀', 'public'],
      ['Unlisted: notes for later', 'unlisted'],
    ]);
    const priv = posts.find((p) => p.visibility === 'followers')!;
    const accepted = await unwrap(draftPost(s, priv.id));
    await expectRunSucceeded(s.running.deps, accepted.run_id);
    const refused = await publishRequest(s, accepted.artifact_id);
    expect(refused.response.status).toBe(403);
    expect(refused.error?.error.message).toContain('confirm_non_public');
    expect(mastodon.state.posted).toEqual([]);
  });

  it('a status made followers-only since the last ingest is narrowed by the next one', async () => {
    mastodon.state.statuses[0]!.visibility = 'private';
    const { pipeline_id } = await ingest(s, mastodon.handle);
    const posts = await listAllPosts(s, pipeline_id);
    expect(posts.find((p) => p.text.startsWith('Public:'))?.visibility).toBe('followers');
  });
});
