// The desk journey of issue 31, in Chromium (playwright-core): a person signs in to the desk,
// connects a Mastodon account and an X account from the Accounts view by approving on the fakes'
// consent pages (no token typed anywhere), has Bluesky, LinkedIn and Threads connected (seeded
// through the API with pasted credentials, as a script would), publishes one artifact to all five
// from the Draft view, and sees each destination's post address there. Each fake received exactly
// one post (or one thread, in order) per destination — also when the connection drops after the
// post was made (X, mid-thread) and publishing resumes. The API fakes accept the tokens their
// authorization-server fakes issued (test/support/fakes/common.ts `authorizedBy`); X's sign-in token
// is near its end, so the publish refreshes it first (rotation) and posts with the new one.
// Runs on the database of the run (SQLite or PostgreSQL).
import { execFileSync } from 'node:child_process';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { tidFor } from '../../server/platforms/bluesky/adapter.js';
import { connect, ingestArchive, listAllPosts, V1 } from '../support/api.js';
import { startLinkedInFake } from '../support/fakes/linkedin.js';
import { startThreadsFake } from '../support/fakes/threads.js';
import { startXFake } from '../support/fakes/x.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { allowRedirect, startXAuthFake, type OAuthFake } from '../support/oauth-fakes.js';
import { startBlueskyFake, startMastodonFake, type MastodonFake } from '../support/platforms.js';
import { seedArtifact, workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { collectPageErrors, connectThrough as connectVia, contextAllowing, launchChromium } from './browser.js';
import { projectRoot } from './support.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 600_000 });

type Five = 'mastodon' | 'bluesky' | 'x' | 'linkedin' | 'threads';

let s: TestServer;
let mastodon: MastodonFake;
let bluesky: Awaited<ReturnType<typeof startBlueskyFake>>;
let xAuth: OAuthFake;
let x: Awaited<ReturnType<typeof startXFake>>;
let linkedin: Awaited<ReturnType<typeof startLinkedInFake>>;
let threads: Awaited<ReturnType<typeof startThreadsFake>>;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let workspaceId: string;
let source: { pipelineId: string; postId: string };
const consoleErrors: string[] = [];
const offsite: string[] = [];

/** Clicks Connect, approves on the platform's page, and answers what that tab shows. */
const connectThrough = async (button: string) => (await connectVia(context, page, button)).text;

/** An approved artifact of the archive pipeline with a variant per platform (the parts as given). */
async function artifactWith(variants: Record<Five, string[]>) {
  const a = await seedArtifact(s.running.deps, {
    workspaceId,
    pipelineId: source.pipelineId,
    postId: source.postId,
    state: 'ready',
    text: variants.mastodon[0],
  });
  for (const [platform, parts] of Object.entries(variants))
    await unwrap(s.client().PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id: a.id, platform: platform as Five } }, body: { parts } }));
  return a;
}

/** Opens the draft, checks every connected account that can post, publishes now, and waits for "Published". */
async function publishFromDesk(id: string) {
  await page.evaluate((h) => (location.hash = h), `#/drafts/${id}`);
  await page.getByRole('heading', { level: 1, name: 'Draft' }).waitFor();
  const boxes = page.getByRole('group', { name: 'Publish to' }).getByRole('checkbox');
  await expect.poll(() => boxes.count(), { timeout: 20_000 }).toBe(5);
  for (const box of await boxes.all()) await box.check();
  await page.getByRole('button', { name: 'Publish now' }).click();
  await page.locator('.badge', { hasText: 'Published' }).waitFor({ timeout: 90_000 });
  return unwrap(s.client().GET(`${V1}/artifacts/{id}`, { params: { path: { id } } }));
}

/** The desk shows each destination's post address as a link, and the state live. */
async function expectAddressesShown(artifact: Awaited<ReturnType<typeof publishFromDesk>>) {
  expect(artifact.destinations.map((d) => d.platform)).toEqual(['mastodon', 'bluesky', 'x', 'linkedin', 'threads']);
  for (const d of artifact.destinations) {
    expect(d.state).toBe('live');
    const card = page.locator(`.destinations .card[data-platform="${d.platform}"]`);
    await card.getByText('live', { exact: true }).waitFor();
    expect(await card.getByRole('link').getAttribute('href')).toBe(d.url);
  }
}

describe('the five-destination journey from the desk, in Chromium', () => {
  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build.mjs', 'desk', '--if-stale'], { cwd: projectRoot, stdio: ['ignore', 'inherit', 'inherit'] });
    mastodon = await startMastodonFake();
    bluesky = await startBlueskyFake();
    // The token from signing in has 5 minutes left: the publish refreshes it first (X rotates the refresh token).
    xAuth = await startXAuthFake({ over: { accessTtlSeconds: 300, refreshedTtlSeconds: 7200 } });
    x = await startXFake({}, { auth: xAuth });
    linkedin = await startLinkedInFake();
    threads = await startThreadsFake();
    const fakes = [mastodon.fake, bluesky.fake, xAuth.fake, x.fake, linkedin.fake, threads.fake];
    s = await startTestServer({
      env: {
        ...xAuth.env,
        ...bluesky.env,
        ...x.env,
        ...linkedin.env,
        ...threads.env,
        ...outboundEnvFor(...fakes),
        JOB_POLL_MS: '50',
        JOB_RETRY_BASE_MS: '200',
      },
    });
    allowRedirect(xAuth, `${s.url}/oauth/callback`);
    workspaceId = await workspaceOf(s.running.deps, s.token);
    // Pasted credentials, as a script connects them.
    await connect(s, { platform: 'bluesky', handle: bluesky.state.handle, auth_material: bluesky.state.appPassword });
    await connect(s, { platform: 'linkedin', handle: linkedin.handle, auth_material: linkedin.state.token });
    await connect(s, { platform: 'threads', handle: threads.handle, auth_material: threads.state.token });
    const { pipeline_id } = await ingestArchive(s, 'x-tweets.js', 'ada-archive-journey', 'x');
    source = { pipelineId: pipeline_id, postId: (await listAllPosts(s, pipeline_id))[0]!.id };

    browser = await launchChromium();
    context = await contextAllowing(browser, [s.url, mastodon.fake.url, xAuth.fake.url], offsite);
    page = await context.newPage();
    collectPageErrors(page, consoleErrors);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    for (const f of [mastodon, bluesky, xAuth, x, linkedin, threads]) await f?.fake.close();
  });

  it('signs in to the desk and connects Mastodon and X through the consent pages', async () => {
    const link = await unwrap(s.client().POST('/api/desk/sign-in-links'));
    await page.goto(`${s.url}${link.path}`);
    await page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();
    await page.evaluate(() => (location.hash = '#/accounts'));
    await page.getByRole('heading', { level: 1, name: 'Accounts' }).waitFor();

    await page.getByLabel('Your Mastodon instance').fill(mastodon.fake.host);
    expect(await connectThrough('Connect mastodon')).toContain(`Connected ${mastodon.handle}`);
    await page
      .locator('li.card')
      .filter({ hasText: `${mastodon.handle} on mastodon` })
      .filter({ hasText: 'by signing in' })
      .waitFor();
    expect(await connectThrough('Connect x')).toContain(`Connected @${xAuth.user.username}`);
    await page
      .locator('li.card')
      .filter({ hasText: `@${xAuth.user.username} on x` })
      .filter({ hasText: 'by signing in' })
      .waitFor();

    const accounts = await unwrap(s.client().GET(`${V1}/accounts`));
    expect(accounts.data.map((a) => [a.platform, a.connected_by, a.status]).sort()).toEqual([
      ['archive', 'credential', 'active'],
      ['bluesky', 'credential', 'active'],
      ['linkedin', 'credential', 'active'],
      ['mastodon', 'sign_in', 'active'],
      ['threads', 'credential', 'active'],
      ['x', 'sign_in', 'active'],
    ]);
    // Nobody typed a token: the credential field stayed empty, and the signed-in accounts hold tokens the fakes issued.
    expect(await page.locator('#acct-secret').inputValue()).toBe('');
    expect(mastodon.state.oauth.accessTokens.size).toBe(1);
    expect(xAuth.oauth.accessTokens.size).toBe(1);
  });

  it('publishes one artifact to the five destinations from the desk; each fake gets one post (or one thread, in order), and the desk shows each address', async () => {
    const v: Record<Five, string[]> = {
      mastodon: ['j1 Mastodon: one post 🦣'],
      bluesky: ['j1 Bluesky: one post 🦋'],
      x: ['j1 X part one 1/2', 'j1 X part two 2/2'],
      linkedin: ['j1 LinkedIn (one post) with @mentions & #tags'],
      threads: ['j1 Threads part one 🧵', 'j1 Threads part two'],
    };
    const a = await artifactWith(v);
    const done = await publishFromDesk(a.id);
    expect(done.state).toBe('published');
    await expectAddressesShown(done);

    // Each fake received the destination's variant once, in order; the signed-in accounts posted with the fakes' tokens.
    expect(mastodon.state.posted.filter((p) => p.text.startsWith('j1')).map((p) => p.text)).toEqual(v.mastodon);
    expect(bluesky.state.records.get(tidFor({ id: a.id, createdAt: a.createdAt, position: 0 }))?.text).toBe(v.bluesky[0]);
    const tweets = x.state.tweets.filter((t) => t.text.startsWith('j1'));
    expect(tweets.map((t) => t.text)).toEqual(v.x);
    expect(tweets[1]!.replyTo).toBe(tweets[0]!.id);
    const li = linkedin.state.posts.filter((p) => p.text.startsWith('j1'));
    expect(li.map((p) => p.text)).toEqual(v.linkedin);
    const th = threads.state.posts.filter((p) => p.text.startsWith('j1'));
    expect(th.map((p) => p.text)).toEqual(v.threads);
    expect(th[1]!.replyTo).toBe(th[0]!.id);
    const [md, , xd, ld, td] = done.destinations;
    expect(md!.url).toBe(`https://mastodon.example/@ada/${mastodon.state.posted.find((p) => p.text === v.mastodon[0])!.id}`);
    expect(xd!.url).toBe(`https://x.com/${xAuth.user.username}/status/${tweets[0]!.id}`);
    expect(ld!.url).toBe(`https://www.linkedin.com/feed/update/${li[0]!.id}/`);
    expect(td!.url).toBe(th[0]!.permalink);
    // X's sign-in token was near its end: refreshed once (the refresh token rotated), and the tweets made with the new token.
    expect(xAuth.oauth.refreshes).toBe(1);
    expect(xAuth.oauth.refusedRefreshes).toBe(0);
    const used = new Set(x.fake.requests.filter((r) => r.method === 'POST' && r.url === '/2/tweets').map((r) => r.headers.authorization));
    expect(used.size).toBe(1);
    expect(xAuth.oauth.accessTokens.get(String([...used][0]).slice('Bearer '.length))!.expiresAt).toBeGreaterThan(Date.now() + 3600_000);
  });

  it('a connection dropped after X made the second post: publishing resumes, nothing is posted twice, and the desk shows every address', async () => {
    const v: Record<Five, string[]> = {
      mastodon: ['j2 Mastodon post'],
      bluesky: ['j2 Bluesky post'],
      x: ['j2 X part one 1/3', 'j2 X part two, dropped 2/3', 'j2 X part three 3/3'],
      linkedin: ['j2 LinkedIn post'],
      threads: ['j2 Threads post'],
    };
    const a = await artifactWith(v);
    x.state.dropAfterPostText = 'j2 X part two';
    const done = await publishFromDesk(a.id);
    expect(x.state.dropAfterPostText).toBeNull(); // the connection was dropped
    expect(done.state).toBe('published');
    await expectAddressesShown(done);
    const tweets = x.state.tweets.filter((t) => t.text.startsWith('j2'));
    expect(tweets.map((t) => t.text)).toEqual(v.x);
    expect(tweets[1]!.replyTo).toBe(tweets[0]!.id);
    expect(tweets[2]!.replyTo).toBe(tweets[1]!.id);
    expect(done.destinations.find((d) => d.platform === 'x')!.parts.map((p) => p.url)).toEqual(
      tweets.map((t) => `https://x.com/${xAuth.user.username}/status/${t.id}`),
    );
    expect(mastodon.state.posted.filter((p) => p.text.startsWith('j2')).map((p) => p.text)).toEqual(v.mastodon);
    expect([...bluesky.state.records.values()].filter((r) => r.text.startsWith('j2')).map((r) => r.text)).toEqual(v.bluesky);
    expect(linkedin.state.posts.filter((p) => p.text.startsWith('j2')).map((p) => p.text)).toEqual(v.linkedin);
    expect(threads.state.posts.filter((p) => p.text.startsWith('j2')).map((p) => p.text)).toEqual(v.threads);
    expect(consoleErrors).toEqual([]);
    expect(offsite).toEqual([]);
  });
});
