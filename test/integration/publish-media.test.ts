// Publishing an artifact's images against the Mastodon and Bluesky fakes: uploaded with their alt
// text (checked on the fake's side), fitted to the platform (Bluesky's 1,000,000 bytes), 4 per post
// from the first part of the thread on; a failure between the upload and the post, then a resume,
// uploads each image once and creates each post once (counted at the fakes' wire). The request
// refuses, naming the item, an image without alt text (unless allow_missing_alt_text) and more
// images than the thread has room for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { tidFor } from '../../server/platforms/bluesky/adapter.js';
import { noise, photoWithGps, upload } from '../support/images.js';
import { publishAndWait, publishingWorld, publishRequest, V1 } from '../support/api.js';
import { deleteRows, findRows } from '../support/rows.js';
import { seedArtifact } from '../support/seed.js';

type World = Awaited<ReturnType<typeof publishingWorld>>;

let w: World;
beforeAll(async () => {
  w = await publishingWorld();
});
afterAll(async () => {
  await w?.stop();
});

const ALT = [
  'A bar chart: import time fell from 41 s to 9 s 📉',
  '東京オフィスのホワイトボード、矢印が三本',
  'צילום מסך של לוח הבקרה, כל הנורות ירוקות',
  'Ada and Lin 👩🏽‍💻👨‍👩‍👧‍👦 celebrating the release, cake in hand',
  'The CSV sample: “naïve café”, e\u0301clair, 12 columns',
  'A terminal showing `cpa artifacts publish` succeeding',
]; // stored NFC-normalised (the last but one has a combining accent)

/** A ready artifact on `platform` whose variant is `parts`, carrying `images` uploads with `alts` (null: none). */
async function artifactWithImages(platform: 'mastodon' | 'bluesky', parts: string[], images: Buffer[], alts: Array<string | null>) {
  const pl = w.pipelines[platform];
  const a = await seedArtifact(w.s.running.deps, {
    workspaceId: w.workspaceId,
    pipelineId: pl.id,
    postId: pl.postId,
    state: 'ready',
    text: parts.join('\n\n'),
  });
  await unwrap(w.s.client().PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id: a.id, platform } }, body: { parts } }));
  const ids: string[] = [];
  for (const bytes of images) {
    const up = await upload(w.s, bytes);
    expect(up.status).toBe(201);
    ids.push(up.json.id as string);
  }
  const set = await unwrap(
    w.s
      .client()
      .PUT(`${V1}/artifacts/{id}/media`, { params: { path: { id: a.id } }, body: { media: ids.map((id, i) => ({ id, alt_text: alts[i] ?? null })) } }),
  );
  expect(set.media?.map((m) => m.id)).toEqual(ids);
  return { a, ids };
}

const wire = (fake: { requests: Array<{ method: string; url: string }> }, method: string, path: string) =>
  fake.requests.filter((r) => r.method === method && r.url.split('?')[0] === path).length;

describe('mastodon', () => {
  it('6 images on a 2-part thread: 4 on part 1, 2 on part 2, each with its alt text; a failure after the upload then a resume uploads and posts each once', async () => {
    const parts = ['Importer v2.3 in pictures (mm1) 🧵 1/2', 'And the people behind it, 東京 and תל אביב (mm1) mm1-PART2 2/2'];
    const images = await Promise.all(ALT.map((_, i) => photoWithGps(40 + i, 20)));
    const { a, ids } = await artifactWithImages('mastodon', parts, images, ALT);
    const uploadsBefore = wire(w.mastodon.fake, 'POST', '/api/v2/media');
    const verifiesBefore = wire(w.mastodon.fake, 'GET', '/api/v1/accounts/verify_credentials');
    // Part 2's post is refused after its images were uploaded: as a crash between upload and post.
    w.mastodon.state.refuseText = 'mm1-PART2';
    w.mastodon.state.refuseStatus = 422;
    const failed = await publishAndWait(w.s, a.id);
    expect(failed.artifact.state).toBe('publish_failed');
    expect(wire(w.mastodon.fake, 'POST', '/api/v2/media') - uploadsBefore).toBe(6);
    // verify_credentials once for the run, not once per part and per upload.
    expect(wire(w.mastodon.fake, 'GET', '/api/v1/accounts/verify_credentials') - verifiesBefore).toBe(1);
    const recorded = await findRows(w.s.running.deps.db, 'PublishedPartMedia', { artifactId: a.id });
    expect(recorded.map((r) => [r.position, JSON.parse(r.uploaded).media_ids])).toEqual([
      [0, ids.slice(0, 4)],
      [1, ids.slice(4)],
    ]);

    w.mastodon.state.refuseText = null;
    const resumed = await publishAndWait(w.s, a.id);
    expect(resumed.artifact.state).toBe('published');
    // Nothing uploaded again: part 2 attaches the images its failed attempt uploaded.
    expect(wire(w.mastodon.fake, 'POST', '/api/v2/media') - uploadsBefore).toBe(6);
    const posted = w.mastodon.state.posted.filter((p) => parts.includes(p.text));
    expect(posted.map((p) => p.text)).toEqual(parts);
    expect(posted.map((p) => p.mediaIds?.length)).toEqual([4, 2]);
    // The alt text the instance keeps for each attachment, in order across the thread.
    const descriptions = posted.flatMap((p) => p.mediaIds!.map((m) => w.mastodon.state.media.get(m)!.description));
    expect(descriptions).toEqual(ALT.map((t) => t.normalize('NFC')));
    expect(posted[1].inReplyToId).toBe(posted[0].id);
  });

  it('an image without alt text is 409 naming it; allow_missing_alt_text: true publishes it without a description', async () => {
    const parts = ['One picture, no words (mm2)'];
    const { a, ids } = await artifactWithImages('mastodon', parts, [await photoWithGps()], [null]);
    const refused = await publishRequest(w.s, a.id);
    expect(refused.response.status).toBe(409);
    expect(refused.error?.error.message).toContain(`media item 1 (${ids[0]}) has no alt text`);
    expect(refused.error?.error.suggested_action).toBe('set_alt_text');
    expect(await findRows(w.s.running.deps.db, 'Run', { kind: 'publish', input: JSON.stringify({ artifact_id: a.id }) })).toHaveLength(0);
    const done = await publishAndWait(w.s, a.id, { allow_missing_alt_text: true });
    expect(done.artifact.state).toBe('published');
    const posted = w.mastodon.state.posted.find((p) => p.text === parts[0])!;
    expect(w.mastodon.state.media.get(posted.mediaIds![0]!)!.description).toBeNull();
  });

  it('an image whose bytes are gone fails the run before its part is posted, naming the item (media_unavailable)', async () => {
    const parts = ['A picture that went missing (mm4)'];
    const { a, ids } = await artifactWithImages('mastodon', parts, [await photoWithGps()], [ALT[0]!]);
    // As if the upload's row were lost between the request and the run.
    expect(await deleteRows(w.s.running.deps.db, 'MediaUpload', { id: ids[0]! })).toBe(1);
    const failed = await publishAndWait(w.s, a.id);
    expect(failed.run?.status).toBe('failed');
    expect(failed.run?.errorCode).toBe('media_unavailable');
    expect(failed.artifact.publish_error?.message).toContain(`The bytes of media item 1 (${ids[0]}) are nowhere to be read`);
    expect(w.mastodon.state.posted.some((p) => p.text === parts[0])).toBe(false);
  });

  it('more images than the thread has room for (4 per part) is 409 before anything is queued', async () => {
    const images = await Promise.all(Array.from({ length: 5 }, (_, i) => photoWithGps(30 + i, 20)));
    const { a } = await artifactWithImages('mastodon', ['Five pictures, one post (mm3)'], images, ALT);
    const uploadsBefore = wire(w.mastodon.fake, 'POST', '/api/v2/media');
    const refused = await publishRequest(w.s, a.id);
    expect(refused.response.status).toBe(409);
    expect(refused.error?.error.message).toMatch(/has 5 images; mastodon takes 4 per post, so its thread of 1 part has room for 4/);
    expect(wire(w.mastodon.fake, 'POST', '/api/v2/media')).toBe(uploadsBefore);
  });
});

describe('bluesky', () => {
  it('an image over 1,000,000 bytes is fitted; 5 images go 4 + 1; a failure after the upload then a resume uploads each blob once and creates each record once', async () => {
    const parts = ['Bluesky in pictures (bm1) 🌍 1/2', 'The last one is big: 2400×1600 of noise. bm1-PART2 2/2'];
    const images = [...(await Promise.all(ALT.slice(0, 4).map((_, i) => photoWithGps(40 + i, 30)))), await noise(2400, 1600)];
    expect(images[4]!.length).toBeGreaterThan(1_000_000);
    const { a } = await artifactWithImages('bluesky', parts, images, ALT.slice(0, 5));
    const blobsBefore = wire(w.bluesky.fake, 'POST', '/xrpc/com.atproto.repo.uploadBlob');
    const sessionsBefore = wire(w.bluesky.fake, 'POST', '/xrpc/com.atproto.server.createSession');
    w.bluesky.state.refuseText = 'bm1-PART2';
    const failed = await publishAndWait(w.s, a.id);
    expect(failed.artifact.state).toBe('publish_failed');
    expect(wire(w.bluesky.fake, 'POST', '/xrpc/com.atproto.repo.uploadBlob') - blobsBefore).toBe(5);
    expect(wire(w.bluesky.fake, 'POST', '/xrpc/com.atproto.server.createSession') - sessionsBefore).toBe(1);

    w.bluesky.state.refuseText = null;
    const createsBefore = w.bluesky.state.createCalls;
    const resumed = await publishAndWait(w.s, a.id);
    expect(resumed.artifact.state).toBe('published');
    expect(wire(w.bluesky.fake, 'POST', '/xrpc/com.atproto.repo.uploadBlob') - blobsBefore).toBe(5);
    expect(w.bluesky.state.createCalls - createsBefore).toBe(1);
    const key = { id: a.id, createdAt: new Date(a.createdAt) };
    const records = [0, 1].map((position) => w.bluesky.state.records.get(tidFor({ ...key, position }))!);
    expect(records.map((r) => r.text)).toEqual(parts);
    type Embed = {
      images: Array<{ alt: string; image: { ref: { $link: string }; size: number; mimeType: string }; aspectRatio: { width: number; height: number } }>;
    };
    const embeds = records.map((r) => r.embed as Embed);
    expect(embeds.map((e) => e.images.length)).toEqual([4, 1]);
    expect(embeds.flatMap((e) => e.images.map((i) => i.alt))).toEqual(ALT.slice(0, 5).map((t) => t.normalize('NFC')));
    // The big one was scaled into 2000×2000 and re-encoded under the lexicon's 1,000,000 bytes.
    const big = embeds[1]!.images[0]!;
    expect(big.image.size).toBeLessThanOrEqual(1_000_000);
    expect(w.bluesky.state.blobs.get(big.image.ref.$link)!.size).toBe(big.image.size);
    expect(Math.max(big.aspectRatio.width, big.aspectRatio.height)).toBeLessThanOrEqual(2000);
    expect(big.aspectRatio.width / big.aspectRatio.height).toBeCloseTo(1.5, 1);
  });

  it('a part of 300 graphemes or fewer is accepted whatever its code points (emoji ZWJ sequences, combining marks)', async () => {
    const text = `Family day (bm2) ${'👨‍👩‍👧‍👦'.repeat(100)} e\u0301clair`;
    expect([...text].length).toBeGreaterThan(300);
    const pl = w.pipelines.bluesky;
    const a = await seedArtifact(w.s.running.deps, { workspaceId: w.workspaceId, pipelineId: pl.id, postId: pl.postId, state: 'ready', text });
    await unwrap(
      w.s.client().PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id: a.id, platform: 'bluesky' } }, body: { parts: [text] } }),
    );
    const done = await publishAndWait(w.s, a.id);
    expect(done.artifact.state).toBe('published');
    expect([...w.bluesky.state.records.values()].some((r) => r.text === text)).toBe(true);
  });
});
