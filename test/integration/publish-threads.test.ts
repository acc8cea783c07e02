// Publishing a thread against the Mastodon and Bluesky fakes: each part a reply to the one before,
// a failure in the middle stops and reports what is live, a later publish resumes from the first
// missing part, and no part is ever posted twice (counted on the fake's side). The thread is the
// artifact's platform variant, sent as the agent's own split (PUT /artifacts/{id}/variants/{platform}).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { tidFor } from '../../server/platforms/bluesky/adapter.js';
import { asAccepted, getArtifact, publishingWorld, publishRequest, V1 } from '../support/api.js';
import { findRows, deleteRows } from '../support/rows.js';
import { waitForRun } from '../support/runs.js';
import { seedArtifact } from '../support/seed.js';
import type { TestServer } from '../support/server.js';

type World = Awaited<ReturnType<typeof publishingWorld>>;

let s: TestServer;
let mastodon: World['mastodon'];
let bluesky: World['bluesky'];
let workspaceId: string;
let pipelines: World['pipelines'];
let world: World | undefined;

beforeAll(async () => {
  world = await publishingWorld();
  ({ s, mastodon, bluesky, workspaceId, pipelines } = world);
});

afterAll(async () => {
  await world?.stop();
});

const thread = (tag: string) =>
  [
    `🧵 Importer v2.3 (${tag}): what changed and why it is 4× faster. 1/4`,
    `CSV parsing now streams: 150 MB files stay under 40 MB of memory. Thanks @lin@mastodon.example for the profile! (${tag}) 2/4`,
    `Unicode everywhere: 東京の顧客データ, שלום עולם, e\u0301clair, 👩🏽‍💻👨‍👩‍👧‍👦 all round-trip. ${tag}-PART3 3/4`,
    `Full notes: https://blog.example.org/importer-v2-3?utm_source=thread #release #csv (${tag}) 4/4`,
  ].join('\n\n');

/** A ready artifact whose variant for the pipeline's platform is the text's paragraphs, one post each. */
async function publishThread(pipeline: { id: string; postId: string }, text: string, platform: 'mastodon' | 'bluesky' = 'mastodon') {
  const a = await seedArtifact(s.running.deps, { workspaceId, pipelineId: pipeline.id, postId: pipeline.postId, state: 'ready', text });
  const variant = await unwrap(
    s.client().PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id: a.id, platform } }, body: { parts: text.split('\n\n') } }),
  );
  expect(variant.parts.map((p) => p.text)).toEqual(text.split('\n\n'));
  return a;
}

/** A ready Mastodon thread tagged `tag`, whose third part the fake refuses with `status`. */
async function mastodonThread(tag: string, status: number) {
  const text = thread(tag);
  const a = await publishThread(pipelines.mastodon, text);
  mastodon.state.refuseText = `${tag}-PART3`;
  mastodon.state.refuseStatus = status;
  return { a, parts: text.split('\n\n') };
}

async function publishOnce(id: string) {
  const accepted = asAccepted(await unwrap(publishRequest(s, id)));
  const run = await waitForRun(s.running.deps, accepted.run.run_id);
  return { run, artifact: await getArtifact(s, id) };
}

describe('mastodon threads', () => {
  it('posts each part as a reply to the one before; a failure at part 3 stops with parts 1-2 live; a retry posts 3 and 4 only', async () => {
    const { a, parts } = await mastodonThread('m1', 422);
    const failed = await publishOnce(a.id);
    expect(failed.run.status).toBe('failed');
    expect(failed.artifact.state).toBe('publish_failed');
    const live = mastodon.state.posted.filter((p) => parts.includes(p.text));
    expect(live.map((p) => p.text)).toEqual(parts.slice(0, 2));
    expect(live[1].inReplyToId).toBe(live[0].id);
    expect(live[0].inReplyToId).toBeNull();
    const urls = live.map((p) => `https://mastodon.example/@ada/${p.id}`);
    // Reported on the artifact and in the run's error: which parts are live, with their URLs.
    expect(failed.artifact.published_parts.map((p) => [p.position, p.url])).toEqual([
      [1, urls[0]],
      [2, urls[1]],
    ]);
    expect(failed.artifact.publish_error?.message).toContain(`2 of 4 parts are live (${urls[0]}, ${urls[1]}); publishing again continues from part 3`);
    expect(failed.run.errorMessage).toContain('Part 3 of 4 failed');
    expect(failed.artifact.published_url).toBeNull();
    const event = (await findRows(s.running.deps.db, 'Event', { type: 'artifact.publish_failed' })).find((e) => JSON.parse(e.data).artifact_id === a.id);
    expect(JSON.parse(event!.data).published_urls).toEqual(urls);

    mastodon.state.refuseText = null;
    const resumed = await publishOnce(a.id);
    expect(resumed.run.status).toBe('succeeded');
    const all = mastodon.state.posted.filter((p) => parts.includes(p.text));
    // Each part exactly once, in order, each answering the one before.
    expect(all.map((p) => p.text)).toEqual(parts);
    for (let i = 1; i < all.length; i++) expect(all[i].inReplyToId).toBe(all[i - 1].id);
    expect(all.map((p) => p.idempotencyKey)).toEqual([`cp-${a.id}`, `cp-${a.id}-1`, `cp-${a.id}-2`, `cp-${a.id}-3`]);
    expect(resumed.artifact).toMatchObject({ state: 'published', published_url: urls[0], publish_error: null });
    expect(resumed.artifact.published_parts.map((p) => p.external_id)).toEqual(all.map((p) => p.id));
  });

  it('a part whose record was lost (a crash after the post) is recognised by its Idempotency-Key, not posted again', async () => {
    const { a, parts } = await mastodonThread('m2', 422);
    await publishOnce(a.id);
    // As if the process died between part 2's post and its row.
    await deleteRows(s.running.deps.db, 'PublishedPart', { artifactId: a.id, position: 1 });
    mastodon.state.refuseText = null;
    const wireBefore = mastodon.fake.requests.filter((r) => r.method === 'POST' && r.url === '/api/v1/statuses').length;
    const resumed = await publishOnce(a.id);
    expect(resumed.artifact.state).toBe('published');
    // Part 2 went out on the wire again, with its key, and the fake answered the status it had.
    expect(mastodon.fake.requests.filter((r) => r.method === 'POST' && r.url === '/api/v1/statuses').length - wireBefore).toBe(3);
    const all = mastodon.state.posted.filter((p) => parts.includes(p.text));
    expect(all.map((p) => p.text)).toEqual(parts);
  });

  it('an answer lost after the status was made (the connection dropped) is recognised by its Idempotency-Key: each part posted once', async () => {
    const text = thread('m4');
    const parts = text.split('\n\n');
    const a = await publishThread(pipelines.mastodon, text);
    mastodon.state.dropAnswerText = 'm4-PART3';
    const done = await publishOnce(a.id);
    expect(done.run.status).toBe('succeeded');
    expect(mastodon.state.dropAnswerText).toBeNull(); // the fake did drop the answer
    const posted = mastodon.state.posted.filter((p) => parts.includes(p.text));
    expect(posted.map((p) => p.text)).toEqual(parts);
    expect(done.artifact.published_parts.map((p) => p.external_id)).toEqual(posted.map((p) => p.id));
    // Part 3 went out twice on the wire, with the same key; the instance answered the status it had made.
    const sent = mastodon.fake.requests.filter((r) => r.method === 'POST' && r.url === '/api/v1/statuses' && r.body.toString().includes('m4-PART3'));
    expect(sent.map((r) => r.headers['idempotency-key'])).toEqual([`cp-${a.id}-2`, `cp-${a.id}-2`]);
  });

  it('after a refused part, the agent fixes the rest of the thread (the live parts must stay as posted) and publishing again posts only the fix', async () => {
    const { a, parts } = await mastodonThread('m9', 422);
    const failed = await publishOnce(a.id);
    expect(failed.artifact.state).toBe('publish_failed');
    const putParts = (body: string[]) =>
      s.client().PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id: a.id, platform: 'mastodon' } }, body: { parts: body } });
    // Changing a live part is refused, naming it; nothing is stored.
    const changed = await putParts(['Rewritten first post 🧵', parts[1]!, 'Fixed part three (m9)', parts[3]!]);
    expect(changed.response.status).toBe(422);
    expect(changed.error?.error.message).toMatch(/^body\.parts\[0\] would change part 1, which is already live/);
    // Keeping parts 1-2 and fixing 3: accepted, and the resumed run posts 3 and 4 only.
    const fixed = ['Fixed part three, without what the server refused (m9) 3/4', parts[3]!];
    await unwrap(putParts([parts[0]!, parts[1]!, ...fixed]));
    const resumed = await publishOnce(a.id);
    expect(resumed.artifact.state).toBe('published');
    const posted = mastodon.state.posted.filter((p) => [...parts, ...fixed].includes(p.text));
    expect(posted.map((p) => p.text)).toEqual([parts[0], parts[1], ...fixed]);
    for (let i = 1; i < posted.length; i++) expect(posted[i]!.inReplyToId).toBe(posted[i - 1]!.id);
    // Once published, variants are final again.
    expect((await putParts([parts[0]!])).response.status).toBe(409);
  });

  it('a transient failure in the middle is retried by the run, which continues from the missing part', async () => {
    const { a, parts } = await mastodonThread('m3', 503);
    const accepted = asAccepted(await unwrap(publishRequest(s, a.id)));
    // The run waits for its next attempt (retrying), with parts 1-2 live.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [run] = await findRows(s.running.deps.db, 'Run', { id: accepted.run.run_id });
      if (run.status === 'queued' && run.errorCode === 'backend_unavailable') break;
      if (Date.now() > deadline) throw new Error(`run never retried: ${run.status}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await getArtifact(s, a.id)).state).toBe('publishing');
    mastodon.state.refuseText = null;
    const run = await waitForRun(s.running.deps, accepted.run.run_id);
    expect(run.status).toBe('succeeded');
    expect(mastodon.state.posted.filter((p) => parts.includes(p.text)).map((p) => p.text)).toEqual(parts);
  });
});

describe('bluesky threads', () => {
  it('replies name the root and the parent; a failure at part 3 stops; a retry resumes; one record per part', async () => {
    const text = [`Thread on Bluesky (b1) 🌍 1/3`, `Parsing is streamed now: 東京 → ok. 2/3`, `b1-PART3 — notes: https://blog.example.org/b1 #csv 3/3`].join(
      '\n\n',
    );
    const parts = text.split('\n\n');
    const a = await publishThread(pipelines.bluesky, text, 'bluesky');
    const rkeys = parts.map((_, i) => tidFor({ id: a.id, createdAt: a.createdAt, position: i }));
    expect(new Set(rkeys).size).toBe(3);
    bluesky.state.refuseText = 'b1-PART3';
    const failed = await publishOnce(a.id);
    expect(failed.artifact.state).toBe('publish_failed');
    expect(failed.artifact.published_parts.map((p) => p.url)).toEqual(
      rkeys.slice(0, 2).map((k) => `https://bsky.app/profile/${bluesky.state.handle}/post/${k}`),
    );
    expect(bluesky.state.records.has(rkeys[2])).toBe(false);

    bluesky.state.refuseText = null;
    const resumed = await publishOnce(a.id);
    expect(resumed.artifact.state).toBe('published');
    const uri = (k: string) => `at://${bluesky.state.did}/app.bsky.feed.post/${k}`;
    expect(bluesky.state.records.get(rkeys[0])).toEqual({ text: parts[0] });
    expect(bluesky.state.records.get(rkeys[1])?.reply).toEqual({
      root: { uri: uri(rkeys[0]), cid: `cid-${rkeys[0]}` },
      parent: { uri: uri(rkeys[0]), cid: `cid-${rkeys[0]}` },
    });
    expect(bluesky.state.records.get(rkeys[2])?.reply).toEqual({
      root: { uri: uri(rkeys[0]), cid: `cid-${rkeys[0]}` },
      parent: { uri: uri(rkeys[1]), cid: `cid-${rkeys[1]}` },
    });
    // Every record key was created once: no second create of parts 1-2.
    const creates = bluesky.fake.requests
      .filter((r) => r.url === '/xrpc/com.atproto.repo.createRecord')
      .map((r) => (JSON.parse(r.body.toString()) as { rkey: string }).rkey);
    expect(creates.filter((k) => k === rkeys[0])).toHaveLength(1);
    expect(creates.filter((k) => k === rkeys[1])).toHaveLength(1);
  });

  const fiveParts = (tag: string) => [1, 2, 3, 4, 5].map((n) => `Thread ${tag} 🧵 part ${n}: 東京 e\u0301clair 👨‍👩‍👧‍👦 ${tag}-PART${n} ${n}/5`);
  const createsOf = (rkey: string) =>
    bluesky.fake.requests.filter((r) => r.url === '/xrpc/com.atproto.repo.createRecord' && (JSON.parse(r.body.toString()) as { rkey: string }).rkey === rkey);

  it('a create whose answer is lost (the PDS made part 3, then the connection dropped) reads the record back: live, the thread completes, 5 of 5', async () => {
    const parts = fiveParts('b3');
    const a = await publishThread(pipelines.bluesky, parts.join('\n\n'), 'bluesky');
    const rkeys = parts.map((_, i) => tidFor({ id: a.id, createdAt: a.createdAt, position: i }));
    bluesky.state.dropAnswerText = 'b3-PART3';
    const done = await publishOnce(a.id);
    expect(bluesky.state.dropAnswerText).toBeNull(); // the fake did drop the answer
    expect(done.run.status).toBe('succeeded');
    expect(done.artifact.state).toBe('published');
    expect(done.artifact.published_parts.map((p) => p.url)).toEqual(rkeys.map((k) => `https://bsky.app/profile/${bluesky.state.handle}/post/${k}`));
    expect(rkeys.map((k) => bluesky.state.records.get(k)?.text)).toEqual(parts);
    // Part 4 answers part 3 as the PDS has it (uri and cid from getRecord).
    expect(bluesky.state.records.get(rkeys[3]!)?.reply?.parent).toEqual({
      uri: `at://${bluesky.state.did}/app.bsky.feed.post/${rkeys[2]}`,
      cid: `cid-${rkeys[2]}`,
    });
    expect(createsOf(rkeys[2]!)).toHaveLength(1);
    expect(bluesky.fake.requests.filter((r) => r.url.startsWith('/xrpc/com.atproto.repo.getRecord') && r.url.includes(rkeys[2]!))).toHaveLength(1);
  });

  it('a part created upstream but not recorded here (a crash after the create) is found at its key, where the PDS answers a second create with 500', async () => {
    const parts = fiveParts('b4');
    const a = await publishThread(pipelines.bluesky, parts.join('\n\n'), 'bluesky');
    const rkeys = parts.map((_, i) => tidFor({ id: a.id, createdAt: a.createdAt, position: i }));
    bluesky.state.refuseText = 'b4-PART5';
    const failed = await publishOnce(a.id);
    expect(failed.artifact.published_parts).toHaveLength(4);
    // As if the process died between part 3's create and its row.
    await deleteRows(s.running.deps.db, 'PublishedPart', { artifactId: a.id, position: 2 });
    bluesky.state.refuseText = null;
    const resumed = await publishOnce(a.id);
    expect(resumed.run.status).toBe('succeeded');
    expect(resumed.artifact.published_parts.map((p) => p.position)).toEqual([1, 2, 3, 4, 5]);
    expect(rkeys.map((k) => bluesky.state.records.get(k)?.text)).toEqual(parts);
    expect(createsOf(rkeys[2]!)).toHaveLength(2); // the second answered 500, and the record was read back
  });

  it('posts links, resolved mentions and tags as facets with UTF-8 byte ranges (the fake checks them); a handle that does not resolve stays plain text', async () => {
    bluesky.state.handles.set('grace.bsky.social', 'did:plc:grace');
    const parts = [
      `👩🏽‍💻 東京の顧客データ, e\u0301clair: notes at https://blog.example.org/b2?q=ü (b2) 1/2`,
      `Thanks @grace.bsky.social and @nobody.example.com! Docs: example.com/docs #release #東京 🎉 2/2`,
    ];
    const a = await publishThread(pipelines.bluesky, parts.join('\n\n'), 'bluesky');
    const done = await publishOnce(a.id);
    expect(done.artifact.state).toBe('published');
    const rkeys = parts.map((_, i) => tidFor({ id: a.id, createdAt: a.createdAt, position: i }));
    const covered = (i: number) => {
      const r = bluesky.state.records.get(rkeys[i])!;
      const bytes = Buffer.from(r.text, 'utf8');
      return (r.facets ?? []).map((f) => [bytes.subarray(Number(f.index?.byteStart), Number(f.index?.byteEnd)).toString('utf8'), f.features?.[0]]);
    };
    expect(covered(0)).toEqual([['https://blog.example.org/b2?q=ü', { $type: 'app.bsky.richtext.facet#link', uri: 'https://blog.example.org/b2?q=ü' }]]);
    expect(covered(1)).toEqual([
      ['@grace.bsky.social', { $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:grace' }],
      ['example.com/docs', { $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/docs' }],
      ['#release', { $type: 'app.bsky.richtext.facet#tag', tag: 'release' }],
      ['#東京', { $type: 'app.bsky.richtext.facet#tag', tag: '東京' }],
    ]);
    expect(bluesky.state.resolved).toEqual(expect.arrayContaining(['grace.bsky.social', 'nobody.example.com']));
  });

  it('refuses before queuing when the text, without a variant, is over 300 characters (409, nothing posted)', async () => {
    const a = await seedArtifact(s.running.deps, {
      workspaceId,
      pipelineId: pipelines.bluesky.id,
      postId: pipelines.bluesky.postId,
      state: 'ready',
      text: '長'.repeat(301),
    });
    const calls = bluesky.state.createCalls;
    const res = await publishRequest(s, a.id);
    expect(res.response.status).toBe(409);
    expect(res.error?.error.message).toContain('part 1');
    expect((await getArtifact(s, a.id)).state).toBe('ready');
    expect(bluesky.state.createCalls).toBe(calls);
  });
});
