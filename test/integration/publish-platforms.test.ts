// Publishing to the five platforms at once (issue 31): one artifact to Mastodon, Bluesky, X,
// LinkedIn and Threads destinations, each through its documented fake (test/support/fakes/), each
// fake receiving exactly one post (or one thread, in order) per destination — also when the
// connection drops after the post was made (read back and adopted, never posted twice). A
// LinkedIn text with every reserved character of the little format arrives whole; X's duplicate
// refusal, its 429 reset, an expired token; what a publish request refuses before anything is
// queued (a LinkedIn thread, a Threads image without a public address, Threads' daily quota).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { tidFor } from '../../server/platforms/bluesky/adapter.js';
import { findRunById } from '../../server/store/runs.js';
import { getArtifact, ingestArchive, listAllPosts, publishRequest, connect, asAccepted, V1 } from '../support/api.js';
import { startLinkedInFake, type LinkedInPost } from '../support/fakes/linkedin.js';
import { startThreadsFake, type ThreadsPost } from '../support/fakes/threads.js';
import { startXFake } from '../support/fakes/x.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { noise, upload } from '../support/images.js';
import { startBlueskyFake, startMastodonFake } from '../support/platforms.js';
import { findRow } from '../support/rows.js';
import { waitForRun } from '../support/runs.js';
import { seedArtifact, workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let bluesky: Awaited<ReturnType<typeof startBlueskyFake>>;
let x: Awaited<ReturnType<typeof startXFake>>;
let linkedin: Awaited<ReturnType<typeof startLinkedInFake>>;
let threads: Awaited<ReturnType<typeof startThreadsFake>>;
let workspaceId: string;
let source: { id: string; postId: string };
const acc = {} as Record<'mastodon' | 'bluesky' | 'x' | 'linkedin' | 'threads', string>;

beforeAll(async () => {
  mastodon = await startMastodonFake();
  bluesky = await startBlueskyFake();
  x = await startXFake();
  linkedin = await startLinkedInFake();
  threads = await startThreadsFake();
  const fakes = [mastodon.fake, bluesky.fake, x.fake, linkedin.fake, threads.fake];
  s = await startTestServer({
    env: { ...outboundEnvFor(...fakes), ...bluesky.env, ...x.env, ...linkedin.env, ...threads.env, JOB_POLL_MS: '50', JOB_RETRY_BASE_MS: '200' },
  });
  workspaceId = await workspaceOf(s.running.deps, s.token);
  await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
  await connect(s, { platform: 'bluesky', handle: bluesky.state.handle, auth_material: bluesky.state.appPassword });
  // Until signing in with OAuth lands, X, LinkedIn and Threads are connected with an access token.
  await connect(s, { platform: 'x', handle: x.handle, auth_material: x.state.token });
  await connect(s, { platform: 'linkedin', handle: linkedin.handle, auth_material: linkedin.state.token });
  await connect(s, { platform: 'threads', handle: threads.handle, auth_material: threads.state.token });
  for (const p of ['mastodon', 'bluesky', 'x', 'linkedin', 'threads'] as const) acc[p] = (await findRow(s.running.deps.db, 'Account', { platform: p })).id;
  const { pipeline_id } = await ingestArchive(s, 'x-tweets.js', 'ada-archive-p31', 'x');
  source = { id: pipeline_id, postId: (await listAllPosts(s, pipeline_id))[0].id };
});

afterAll(async () => {
  await s?.stop();
  for (const f of [mastodon, bluesky, x, linkedin, threads]) await f?.fake.close();
});

type Variants = Partial<Record<'mastodon' | 'bluesky' | 'x' | 'linkedin' | 'threads', string[]>>;

async function artifact(variants: Variants) {
  const a = await seedArtifact(s.running.deps, {
    workspaceId,
    pipelineId: source.id,
    postId: source.postId,
    state: 'ready',
    text: Object.values(variants)[0]!.join('\n\n'),
  });
  for (const [platform, parts] of Object.entries(variants))
    await unwrap(s.client().PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id: a.id, platform: platform as 'x' } }, body: { parts } }));
  return a;
}

async function publishAndFinish(id: string, destinations: string[]) {
  const accepted = asAccepted(await unwrap(publishRequest(s, id, { destinations })));
  const run = await waitForRun(s.running.deps, accepted.run.run_id);
  return { run, artifact: await getArtifact(s, id) };
}

/** Every reserved character of LinkedIn's little format, in a real sentence. */
const RESERVED_TEXT = 'Release notes (v2.1) for @ada & team: fixed [#42] <no more> *bold* claims, ~50% faster_io, a|b pipes, {json} and C:\\path\\to #launch';

describe('one artifact, five platforms', () => {
  it('posts each destination its own variant, exactly once (threads in order, each a reply to the one before)', async () => {
    const v = {
      mastodon: ['p1 Mastodon: one post 🦣'],
      bluesky: ['p1 Bluesky: one post 🦋'],
      x: ['p1 X part one & <more> https://blog.example.org/p1 1/2', 'p1 X part two 2/2'],
      linkedin: [`p1 ${RESERVED_TEXT}`],
      threads: ['p1 Threads part one 🧵', 'p1 Threads part two'],
    };
    const a = await artifact(v);
    const { run, artifact: done } = await publishAndFinish(a.id, [acc.mastodon, acc.bluesky, acc.x, acc.linkedin, acc.threads]);
    expect(run.status).toBe('succeeded');
    expect(done.state).toBe('published');
    expect(done.destinations.map((d) => [d.platform, d.state, d.parts.length])).toEqual([
      ['mastodon', 'live', 1],
      ['bluesky', 'live', 1],
      ['x', 'live', 2],
      ['linkedin', 'live', 1],
      ['threads', 'live', 1 + 1],
    ]);
    // Each fake received the destination's variant, once, in order.
    expect(mastodon.state.posted.filter((p) => p.text.startsWith('p1')).map((p) => p.text)).toEqual(v.mastodon);
    expect(bluesky.state.records.get(tidFor({ id: a.id, createdAt: a.createdAt, position: 0 }))?.text).toBe(v.bluesky[0]);
    const tweets = x.state.tweets.filter((t) => t.text.startsWith('p1'));
    expect(tweets.map((t) => t.text)).toEqual(v.x);
    expect(tweets[1]!.replyTo).toBe(tweets[0]!.id);
    expect(tweets[0]!.replyTo).toBeNull();
    const li = linkedin.state.posts.filter((p) => p.text.startsWith('p1'));
    expect(li.map((p) => p.text)).toEqual(v.linkedin); // arrived whole: every reserved character escaped
    expect(linkedin.state.versions.every((ver) => /^\d{6}$/.test(ver))).toBe(true);
    const th = threads.state.posts.filter((p) => p.text.startsWith('p1'));
    expect(th.map((p) => p.text)).toEqual(v.threads);
    expect(th[1]!.replyTo).toBe(th[0]!.id);
    // Each destination shows its post's address.
    const [, , xd, ld, td] = done.destinations;
    expect(xd!.url).toBe(`https://x.com/${x.state.username}/status/${tweets[0]!.id}`);
    expect(ld!.url).toBe(`https://www.linkedin.com/feed/update/${li[0]!.id}/`);
    expect(td!.url).toBe(th[0]!.permalink);
  });

  it('a connection dropped after the post was made: the post is read back and adopted, never made twice', async () => {
    const v = {
      x: ['p2 X part one 1/2', 'p2 X part two, dropped 2/2'],
      linkedin: ['p2 LinkedIn (dropped) post'],
      threads: ['p2 Threads part one', 'p2 Threads part two, dropped'],
    };
    const a = await artifact(v);
    x.state.dropAfterPostText = 'p2 X part two';
    linkedin.state.dropAfterPostText = 'p2 LinkedIn';
    threads.state.dropAfterPostText = 'p2 Threads part two';
    const [xCalls, liCalls, thCalls] = [x.state.postCalls, linkedin.state.postCalls, threads.state.publishCalls];
    const { run, artifact: done } = await publishAndFinish(a.id, [acc.x, acc.linkedin, acc.threads]);
    expect(run.status).toBe('succeeded');
    expect(done.destinations.map((d) => [d.platform, d.state, d.parts.length])).toEqual([
      ['x', 'live', 2],
      ['linkedin', 'live', 1],
      ['threads', 'live', 2],
    ]);
    // One request per part reached each platform, and each has the part once.
    expect([x.state.postCalls - xCalls, linkedin.state.postCalls - liCalls, threads.state.publishCalls - thCalls]).toEqual([2, 1, 2]);
    expect(x.state.tweets.filter((t) => t.text.startsWith('p2')).map((t) => t.text)).toEqual(v.x);
    expect(linkedin.state.posts.filter((p) => p.text.startsWith('p2')).map((p) => p.text)).toEqual(v.linkedin);
    expect(threads.state.posts.filter((p) => p.text.startsWith('p2')).map((p) => p.text)).toEqual(v.threads);
    const dropped = x.state.tweets.find((t) => t.text === v.x[1])!;
    expect(done.destinations[0]!.parts[1]!.external_id).toBe(dropped.id);
  });

  it('read-back pages back: a dropped post the account buried under 60 others meanwhile is found past the first page and adopted', async () => {
    const v = { x: ['p12 X buried, dropped'], linkedin: ['p12 LinkedIn buried (dropped)'], threads: ['p12 Threads buried, dropped'] };
    const a = await artifact(v);
    for (const f of [x, linkedin, threads]) f.state.postsAfterDrop = 60; // more than one read-back page (50)
    x.state.dropAfterPostText = 'p12 X';
    linkedin.state.dropAfterPostText = 'p12 LinkedIn';
    threads.state.dropAfterPostText = 'p12 Threads';
    const [xCalls, liCalls, thCalls] = [x.state.postCalls, linkedin.state.postCalls, threads.state.publishCalls];
    const [xReads, liReads, thReads] = [x.state.timelineReads.length, linkedin.state.postReads.length, threads.state.postReads.length];
    const { run, artifact: done } = await publishAndFinish(a.id, [acc.x, acc.linkedin, acc.threads]);
    expect(run.status).toBe('succeeded');
    expect(run.attempts).toBe(1); // found by the read at once, not by a retry
    // Each part was made once, and its destination adopted that post, found on the second page.
    expect([x.state.postCalls - xCalls, linkedin.state.postCalls - liCalls, threads.state.publishCalls - thCalls]).toEqual([1, 1, 1]);
    const made = [
      x.state.tweets.filter((t) => t.text.startsWith('p12')),
      linkedin.state.posts.filter((p) => p.text.startsWith('p12')),
      threads.state.posts.filter((p) => p.text.startsWith('p12')),
    ];
    expect(made.map((m) => m.length)).toEqual([1, 1, 1]);
    expect(done.destinations.map((d) => d.parts[0]!.external_id)).toEqual(made.map((m) => m[0]!.id));
    // X: from start_time, then by the next_token; LinkedIn: by start; Threads: by the after cursor.
    const xr = x.state.timelineReads.slice(xReads);
    expect(xr.map((r) => r.token)).toEqual([null, 'p50']);
    expect(
      xr.every((r) => r.startTime !== null && Date.parse(r.startTime) <= Date.parse(x.state.tweets.find((t) => t.text.startsWith('p12'))!.createdAt)),
    ).toBe(true);
    expect(linkedin.state.postReads.slice(liReads).map((r) => r.start)).toEqual([0, 50]);
    const tr = threads.state.postReads.slice(thReads);
    expect(tr.map((r) => r.after === null)).toEqual([true, false]);
    // Gone again, so that the next tests' first pages and Threads' quota are as before.
    const other = (t: string) => t.startsWith('Posted from another app');
    x.state.tweets = x.state.tweets.filter((t) => !other(t.text));
    linkedin.state.posts = linkedin.state.posts.filter((p) => !other(p.text));
    threads.state.posts = threads.state.posts.filter((p) => !other(p.text));
  });

  it('read-back stops at posts older than the attempt: an account with a long history is read one page deep', async () => {
    const longAgo = Date.now() - 2 * 86_400_000;
    const author = `urn:li:person:${linkedin.state.sub}`;
    const history: LinkedInPost[] = Array.from({ length: 200 }, (_, i) => ({
      id: `urn:li:share:${6_000_000_000_000 + i}`,
      author,
      commentary: `An old post (${i})`,
      text: `An old post (${i})`,
      content: null,
      createdAt: longAgo + i,
    }));
    linkedin.state.posts.unshift(...history);
    const oldThreads: ThreadsPost[] = Array.from({ length: 120 }, (_, i) => ({
      id: String(5_000_000_000_000 + i),
      text: `An old thread (${i})`,
      replyTo: null,
      mediaType: 'TEXT',
      images: [],
      permalink: `https://www.threads.net/@${threads.state.username}/post/old${i}`,
      timestamp: new Date(longAgo + i).toISOString(),
    }));
    threads.state.posts.unshift(...oldThreads);
    try {
      const a = await artifact({ linkedin: ['p13 LinkedIn after a 503'], threads: ['p13 Threads after a 503'] });
      // A 503 without the post made: unknown outcome, read back at once (nothing), then the retry reads back before posting.
      linkedin.state.failNextPosts = 1;
      threads.state.failNextPosts = 1;
      const [liReads, thReads] = [linkedin.state.postReads.length, threads.state.postReads.length];
      const { run } = await publishAndFinish(a.id, [acc.linkedin, acc.threads]);
      expect(run.status).toBe('succeeded');
      expect(run.attempts).toBe(2);
      expect(linkedin.state.posts.filter((p) => p.text.startsWith('p13'))).toHaveLength(1);
      expect(threads.state.posts.filter((p) => p.text.startsWith('p13'))).toHaveLength(1);
      // Two read-backs each, one page each: the first page already reaches posts from before the attempt.
      expect(linkedin.state.postReads.slice(liReads).map((r) => r.start)).toEqual([0, 0]);
      expect(threads.state.postReads.slice(thReads).map((r) => r.after)).toEqual([null, null]);
    } finally {
      linkedin.state.posts = linkedin.state.posts.filter((p) => !history.includes(p));
      threads.state.posts = threads.state.posts.filter((p) => !oldThreads.includes(p));
    }
  });

  it('X: a dropped answer whose read-back fails too is retried by the run, which reads back before posting and adopts the post', async () => {
    const a = await artifact({ x: ['p11 X part one 1/2', 'p11 X part two 2/2'] });
    x.state.dropAfterPostText = 'p11 X part two';
    x.state.failNextReads = 1; // the read at once fails: the outcome stays unknown until the retry
    const calls = x.state.postCalls;
    const { run, artifact: done } = await publishAndFinish(a.id, [acc.x]);
    expect(run.status).toBe('succeeded');
    expect(run.attempts).toBe(2);
    expect(x.state.postCalls - calls).toBe(2);
    const made = x.state.tweets.filter((t) => t.text.startsWith('p11'));
    expect(made.map((t) => t.text)).toEqual(['p11 X part one 1/2', 'p11 X part two 2/2']);
    expect(done.destinations[0]!.parts.map((p) => p.external_id)).toEqual(made.map((t) => t.id));
  });

  it('images go with their alt text: X through the media upload and metadata, LinkedIn through the Images API', async () => {
    const a = await artifact({ x: ['p10 X with two images'], linkedin: ['p10 LinkedIn with two images'] });
    const ups = [];
    for (const size of [48, 56]) ups.push((await upload(s, await noise(size, size))).json.id as string);
    await unwrap(
      s
        .client()
        .PUT(`${V1}/artifacts/{id}/media`, { params: { path: { id: a.id } }, body: { media: ups.map((id, i) => ({ id, alt_text: `Chart ${i + 1} (p10)` })) } }),
    );
    const { run } = await publishAndFinish(a.id, [acc.x, acc.linkedin]);
    expect(run.status).toBe('succeeded');
    const tweet = x.state.tweets.find((t) => t.text.startsWith('p10'))!;
    expect(tweet.mediaIds.map((m) => x.state.media.get(m)!.altText)).toEqual(['Chart 1 (p10)', 'Chart 2 (p10)']);
    const post = linkedin.state.posts.find((p) => p.text.startsWith('p10'))!;
    const images = (post.content as { multiImage: { images: Array<{ id: string; altText: string }> } }).multiImage.images;
    expect(images.map((i) => i.altText)).toEqual(['Chart 1 (p10)', 'Chart 2 (p10)']);
    expect(images.every((i) => (linkedin.state.images.get(i.id)?.bytes?.length ?? 0) > 0)).toBe(true);
  });

  it('X: a 429 retries the run no sooner than x-rate-limit-reset, and the post is made once', async () => {
    const a = await artifact({ x: ['p3 X after a rate limit'] });
    x.state.rateLimitNext = 1;
    x.state.resetInSeconds = 3; // well past the 200 ms backoff of this server
    const before = Math.floor(Date.now() / 1000);
    const { run, artifact: done } = await publishAndFinish(a.id, [acc.x]);
    expect(run.status).toBe('succeeded');
    expect(run.attempts).toBe(2);
    // The second attempt was queued for the reset X named (whole seconds), not the 200 ms backoff.
    const row = await findRunById(s.running.deps.db, run.id);
    expect(row!.runAfter.getTime()).toBeGreaterThanOrEqual((before + 3) * 1000);
    expect(done.destinations[0]!.state).toBe('live');
    expect(x.state.tweets.filter((t) => t.text.startsWith('p3'))).toHaveLength(1);
  });

  it('X: a duplicate-content 403 for a post that is not this part fails with that reason', async () => {
    const a = await artifact({ x: ['p4 first', 'p4 said before'] });
    // The account already has this exact text, answering something else: not ours to adopt.
    x.state.tweets.push({ id: '42', text: 'p4 root elsewhere', replyTo: null, mediaIds: [], createdAt: new Date().toISOString() });
    x.state.tweets.push({ id: '43', text: 'p4 said before', replyTo: '42', mediaIds: [], createdAt: new Date().toISOString() });
    const { run, artifact: done } = await publishAndFinish(a.id, [acc.x]);
    expect(run.status).toBe('failed');
    expect(done.destinations[0]!.state).toBe('failed');
    expect(done.destinations[0]!.error?.message).toContain('duplicate content');
    expect(done.destinations[0]!.parts).toHaveLength(1);
  });

  it('X: an expired token (401) fails the destination as credential_dead and marks the account dead; reconnecting revives it', async () => {
    const a = await artifact({ x: ['p5 X with an expired token'] });
    x.state.expired = true;
    try {
      const { run, artifact: done } = await publishAndFinish(a.id, [acc.x]);
      expect(run.status).toBe('failed');
      expect(done.destinations[0]).toMatchObject({ state: 'failed', error: { code: 'credential_dead' } });
      expect((await findRow(s.running.deps.db, 'Account', { platform: 'x' })).status).toBe('dead');
      expect(x.state.tweets.some((t) => t.text.startsWith('p5'))).toBe(false);
    } finally {
      x.state.expired = false;
    }
    await connect(s, { platform: 'x', handle: x.handle, auth_material: x.state.token });
    expect((await findRow(s.running.deps.db, 'Account', { platform: 'x' })).status).not.toBe('dead');
  });

  it('Threads: an expired token met by the quota check at the request is 424 credential_dead, nothing queued', async () => {
    const a = await artifact({ threads: ['p5 Threads with an expired token'] });
    threads.state.expired = true;
    try {
      const r = await publishRequest(s, a.id, { destinations: [acc.threads] });
      expect(r.response.status).toBe(424);
      expect(r.error?.error.code).toBe('credential_dead');
    } finally {
      threads.state.expired = false;
    }
    expect((await getArtifact(s, a.id)).state).toBe('ready');
  });
});

describe('LinkedIn counts the commentary as people read it', () => {
  /** A text of exactly `n` UTF-16 code units made of RESERVED_TEXT, every reserved character in it, ending on no space. */
  const reservedText = (prefix: string, n: number) => {
    let t = prefix;
    while (t.length < n) t += `${RESERVED_TEXT} `;
    t = t.slice(0, n - 1);
    return `${t}.`;
  };

  it('a text of exactly 3,000 characters with reserved characters is accepted and arrives whole, longer once escaped', async () => {
    const text = reservedText('p14 ', 3000);
    expect(text.length).toBe(3000);
    const a = await artifact({ linkedin: [text] });
    const { run, artifact: done } = await publishAndFinish(a.id, [acc.linkedin]);
    expect(run.status).toBe('succeeded');
    expect(done.destinations[0]!.state).toBe('live');
    const post = linkedin.state.posts.find((p) => p.text.startsWith('p14'))!;
    expect(post.text).toBe(text); // whole: nothing cut at a reserved character
    expect(post.commentary.length).toBeGreaterThan(3000); // the escaping LinkedIn does not count
  });

  it('3,001 characters are refused as the variant is written, naming the part', async () => {
    const a = await artifact({ linkedin: ['p15 short'] });
    const r = await s
      .client()
      .PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id: a.id, platform: 'linkedin' } }, body: { parts: [reservedText('p15 ', 3001)] } });
    expect(r.response.status).toBe(422);
    expect(r.error?.error.message).toMatch(/body\.parts\[0\].*counts 3001 \(utf16_code_units\), over linkedin's limit of 3000/s);
  });
});

describe('refused before anything is queued', () => {
  it('LinkedIn has no threads: a LinkedIn variant in two parts is 409 with the reason', async () => {
    const a = await artifact({ linkedin: ['p6 one', 'p6 two'] });
    const r = await publishRequest(s, a.id, { destinations: [acc.linkedin] });
    expect(r.response.status).toBe(409);
    expect(r.error?.error.message).toContain('linkedin has no threads');
    expect((await getArtifact(s, a.id)).state).toBe('ready');
  });

  it('Threads: an image without the service public address is refused at schedule time, naming PUBLIC_BASE_URL', async () => {
    const a = await artifact({ threads: ['p7 Threads with an image'] });
    const up = await upload(s, await noise(64, 64));
    await unwrap(
      s.client().PUT(`${V1}/artifacts/{id}/media`, { params: { path: { id: a.id } }, body: { media: [{ id: up.json.id as string, alt_text: 'Grey noise' }] } }),
    );
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const r = await publishRequest(s, a.id, { destinations: [acc.threads], at });
    expect(r.response.status).toBe(409);
    expect(r.error?.error.message).toContain('PUBLIC_BASE_URL');
    expect((await getArtifact(s, a.id)).state).toBe('ready');
  });

  it('Threads: with PUBLIC_BASE_URL, Threads fetches each image from its sealed address (one IMAGE, two a CAROUSEL) with its alt text; a changed address is 404', async () => {
    const config = s.running.deps.config;
    config.publicBaseUrl = s.url; // the test server stands for the service's public address
    try {
      const a = await artifact({ threads: ['p9 Threads with two images', 'p9 and one more'] });
      const ups = [];
      for (const size of [64, 80, 96]) ups.push((await upload(s, await noise(size, size))).json.id as string);
      await unwrap(
        s.client().PUT(`${V1}/artifacts/{id}/media`, {
          params: { path: { id: a.id } },
          body: { media: ups.map((id, i) => ({ id, alt_text: `Noise ${i + 1}` })) },
        }),
      );
      // Threads takes 20 per post: all three go with part 1, as a carousel.
      const { run, artifact: done } = await publishAndFinish(a.id, [acc.threads]);
      expect(run.status).toBe('succeeded');
      expect(done.destinations[0]!.state).toBe('live');
      const posted = threads.state.posts.filter((p) => p.text.startsWith('p9'));
      expect(posted.map((p) => [p.mediaType, p.images.length])).toEqual([
        ['CAROUSEL', 3],
        ['TEXT', 0],
      ]);
      expect(posted[0]!.images.map((i) => i.altText)).toEqual(['Noise 1', 'Noise 2', 'Noise 3']);
      const url = posted[0]!.images[0]!.url;
      expect(url.startsWith(`${s.url}/api/media-public/`)).toBe(true);
      expect(posted[0]!.images[0]!.contentType).toBe('image/jpeg');
      // The address is sealed: one character changed is not an address of this service.
      const token = url.slice(url.lastIndexOf('/') + 1);
      const changed = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.at(-1)}`;
      const bad = await fetch(`${s.url}/api/media-public/${changed}`);
      expect(bad.status).toBe(404);
      expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('not_found');
      const good = await fetch(url);
      expect(good.status).toBe(200);
      expect(Buffer.from(await good.arrayBuffer()).equals(posted[0]!.images[0]!.bytes)).toBe(true);
    } finally {
      config.publicBaseUrl = null;
    }
  });

  it('Threads: a thread that does not fit the 250 posts a day is refused at schedule time', async () => {
    const a = await artifact({ threads: ['p8 one', 'p8 two'] });
    threads.state.quotaUsage = threads.state.quotaTotal - threads.state.posts.length - 1;
    try {
      const r = await publishRequest(s, a.id, { destinations: [acc.threads], at: new Date(Date.now() + 3_600_000).toISOString() });
      expect(r.response.status).toBe(409);
      expect(r.error?.error.message).toMatch(/published 249 of its 250 posts/);
    } finally {
      threads.state.quotaUsage = 0;
    }
  });
});
