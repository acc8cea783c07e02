// Signed in, then published: X, LinkedIn and Threads accounts connected by approving on their
// authorization-server fakes (test/support/oauth-fakes.ts), then an artifact published to the three
// through their API fakes, which accept the tokens the sign-in issued (`startXFake({}, { auth })`,
// test/support/fakes/common.ts) and refuse any other. X's token is near its end: the publish
// refreshes it first (the refresh token rotates) and posts with the new one. Each fake gets one
// post (or one thread, in order). On SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { asAccepted, getArtifact, ingestArchive, listAllPosts, publishRequest, V1 } from '../support/api.js';
import { startLinkedInFake } from '../support/fakes/linkedin.js';
import { startThreadsFake } from '../support/fakes/threads.js';
import { startXFake } from '../support/fakes/x.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { allowRedirect, startLinkedInAuthFake, startThreadsAuthFake, startXAuthFake, type OAuthFake } from '../support/oauth-fakes.js';
import { consent } from '../support/oauth-server.js';
import { waitForRun } from '../support/runs.js';
import { seedArtifact, workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';

type Three = 'x' | 'linkedin' | 'threads';

let s: TestServer;
const auth = {} as Record<Three, OAuthFake>;
let x: Awaited<ReturnType<typeof startXFake>>;
let linkedin: Awaited<ReturnType<typeof startLinkedInFake>>;
let threads: Awaited<ReturnType<typeof startThreadsFake>>;

beforeAll(async () => {
  auth.x = await startXAuthFake({ over: { accessTtlSeconds: 300, refreshedTtlSeconds: 7200 } });
  auth.linkedin = await startLinkedInAuthFake();
  auth.threads = await startThreadsAuthFake();
  x = await startXFake({}, { auth: auth.x });
  linkedin = await startLinkedInFake({}, { auth: auth.linkedin });
  threads = await startThreadsFake({}, { auth: auth.threads });
  const fakes = [...Object.values(auth).map((a) => a.fake), x.fake, linkedin.fake, threads.fake];
  s = await startTestServer({
    env: {
      ...auth.x.env,
      ...auth.linkedin.env,
      ...auth.threads.env,
      ...x.env,
      ...linkedin.env,
      ...threads.env,
      ...outboundEnvFor(...fakes),
      JOB_POLL_MS: '50',
      JOB_RETRY_BASE_MS: '200',
    },
  });
  for (const a of Object.values(auth)) allowRedirect(a, `${s.url}/oauth/callback`);
});

afterAll(async () => {
  await s?.stop();
  for (const f of [...Object.values(auth), x, linkedin, threads]) await f?.fake.close();
});

/** Starts the sign-in, approves on the fake's consent page, comes back: the account connected. */
async function signIn(platform: Three): Promise<string> {
  const started = await unwrap(s.client().POST(`${V1}/accounts/authorizations`, { body: { platform, idempotency_key: newIdempotencyKey() } }));
  const back = await fetch(await consent(started.authorization_url, auth[platform].fake.caFile));
  expect(back.status).toBe(200);
  const done = await unwrap(s.client().GET(`${V1}/accounts/authorizations/{id}`, { params: { path: { id: started.id } } }));
  expect(done.account).toMatchObject({ platform, connected_by: 'sign_in', status: 'active' });
  return done.account!.id;
}

/** The Authorization headers an API fake received on its post calls. */
const bearers = (requests: Array<{ method: string; url: string; headers: Record<string, unknown> }>, path: RegExp) =>
  new Set(requests.filter((r) => r.method === 'POST' && path.test(r.url)).map((r) => String(r.headers.authorization).slice('Bearer '.length)));

describe('signed in, then published', () => {
  it('publishes to the X, LinkedIn and Threads accounts signed in, with the tokens the sign-in issued (X’s refreshed first)', async () => {
    const ids = { x: await signIn('x'), linkedin: await signIn('linkedin'), threads: await signIn('threads') };
    const { pipeline_id } = await ingestArchive(s, 'x-tweets.js', 'ada-archive-sign-in', 'x');
    const post = (await listAllPosts(s, pipeline_id))[0]!;
    const v: Record<Three, string[]> = {
      x: ['s1 X part one 1/2', 's1 X part two 2/2'],
      linkedin: ['s1 LinkedIn post (signed in) #one'],
      threads: ['s1 Threads part one', 's1 Threads part two'],
    };
    const a = await seedArtifact(s.running.deps, {
      workspaceId: await workspaceOf(s.running.deps, s.token),
      pipelineId: pipeline_id,
      postId: post.id,
      state: 'ready',
      text: v.x[0],
    });
    for (const [platform, parts] of Object.entries(v))
      await unwrap(
        s.client().PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id: a.id, platform: platform as Three } }, body: { parts } }),
      );

    const accepted = asAccepted(await unwrap(publishRequest(s, a.id, { destinations: [ids.x, ids.linkedin, ids.threads] })));
    const run = await waitForRun(s.running.deps, accepted.run.run_id);
    expect(run.status).toBe('succeeded');
    const done = await getArtifact(s, a.id);
    expect(done.destinations.map((d) => [d.platform, d.state, d.parts.length])).toEqual([
      ['x', 'live', 2],
      ['linkedin', 'live', 1],
      ['threads', 'live', 2],
    ]);
    expect(x.state.tweets.map((t) => t.text)).toEqual(v.x);
    expect(linkedin.state.posts.map((p) => p.text)).toEqual(v.linkedin);
    expect(threads.state.posts.map((p) => p.text)).toEqual(v.threads);
    // none refused on the way (an unauthorized call would have been a post call too)
    expect([x.state.postCalls, linkedin.state.postCalls, threads.state.publishCalls]).toEqual([2, 1, 2]);

    // The API fakes were called with the sign-in's tokens only, never their pasted ones.
    const used = {
      x: bearers(x.fake.requests, /^\/2\/tweets$/),
      linkedin: bearers(linkedin.fake.requests, /^\/rest\/posts$/),
      threads: bearers(threads.fake.requests, /\/threads(_publish)?$/),
    };
    for (const p of ['x', 'linkedin', 'threads'] as const) {
      expect(used[p].size, p).toBe(1);
      expect(auth[p].oauth.accessTokens.has([...used[p]][0]!), p).toBe(true);
    }
    // X's 5-minute token was refreshed once before posting; the tweets went out with the new two-hour one.
    expect(auth.x.oauth.refreshes).toBe(1);
    expect(auth.x.oauth.accessTokens.get([...used.x][0]!)!.expiresAt).toBeGreaterThan(Date.now() + 3600_000);
  });

  it('a sign-in token the authorization server ended is refused by the API fake too (they share the expiry)', async () => {
    const [token] = [...auth.linkedin.oauth.accessTokens.keys()];
    const account = (await unwrap(s.client().GET(`${V1}/accounts`))).data.find((acc) => acc.platform === 'linkedin')!;
    expect((await unwrap(s.client().POST(`${V1}/accounts/check/{id}`, { params: { path: { id: account.id } } }))).status).toBe('active');
    auth.linkedin.oauth.accessTokens.get(token!)!.expiresAt = Date.now() - 1000;
    expect((await unwrap(s.client().POST(`${V1}/accounts/check/{id}`, { params: { path: { id: account.id } } }))).status).toBe('dead');
  });
});
