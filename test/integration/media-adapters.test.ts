// The adapters' image uploads against the local fakes, which keep (and check) the alt text on
// their side: Mastodon POST /api/v2/media with `description` (polling an attachment still
// processing), Bluesky uploadBlob and the app.bsky.embed.images embed that the fake's
// createRecord validates (alt present, blob known, ≤ 1,000,000 bytes). And the download of an
// upstream image through the outbound client: metadata stripped, private addresses refused.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blueskyAdapter } from '../../server/platforms/bluesky/adapter.js';
import { sendJson } from '../../server/adapters/http.js';
import { mastodonAdapter } from '../../server/platforms/mastodon/adapter.js';
import type { ImageToUpload } from '../../server/adapters/types.js';
import { adapterContext } from '../../server/services/accounts.js';
import { downloadImage } from '../../server/services/media.js';
import { fitForPlatform } from '../../server/services/media-limits.js';
import { outboundEnvFor, reply, startFake, type Fake } from '../support/https-fake.js';
import { hasGpsIfd, noise, photoWithGps } from '../support/images.js';
import { startBlueskyFake, startMastodonFake } from '../support/platforms.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let bluesky: Awaited<ReturnType<typeof startBlueskyFake>>;
let cdn: Fake;
let photo: Buffer;

beforeAll(async () => {
  photo = await photoWithGps(1200, 800);
  mastodon = await startMastodonFake();
  bluesky = await startBlueskyFake();
  cdn = await startFake({ routes: { '/photo.jpg': reply(200, photo, 'image/jpeg') }, handler: reply(404, 'no') });
  s = await startTestServer({ env: { ...outboundEnvFor(mastodon.fake, bluesky.fake, cdn), ...bluesky.env } });
});

afterAll(async () => {
  await s?.stop();
  for (const f of [mastodon?.fake, bluesky?.fake, cdn]) await f?.close();
});

const alt1 = 'Bar chart: CI time per week fell from 38 to 17 minutes ⏱️ — 日本語の説明も';
const alt2 = 'Ada and Lin on stage, 🎂 in hand (شكرا)';

async function images(): Promise<ImageToUpload[]> {
  const a = await sharp({ create: { width: 320, height: 200, channels: 3, background: 'orange' } })
    .jpeg()
    .toBuffer();
  const b = await sharp({ create: { width: 200, height: 320, channels: 3, background: 'purple' } })
    .png()
    .toBuffer();
  return [
    { bytes: a, contentType: 'image/jpeg', altText: alt1, width: 320, height: 200 },
    { bytes: b, contentType: 'image/png', altText: alt2, width: 200, height: 320 },
  ];
}

describe('mastodon image uploads', () => {
  it('uploads each image with its description (the alt text), in order; the instance keeps it', async () => {
    const ctx = adapterContext(s.running.deps, null);
    const imgs = await images();
    const made = await mastodonAdapter.uploadImages!(ctx, mastodon.handle, { secret: mastodon.state.token, secondary: null }, imgs);
    expect('mediaIds' in made).toBe(true);
    const ids = (made as { mediaIds: string[] }).mediaIds;
    expect(ids).toHaveLength(2);
    expect(ids.map((id) => mastodon.state.media.get(id)?.description)).toEqual([alt1, alt2]);
    expect(ids.map((id) => mastodon.state.media.get(id)?.contentType)).toEqual(['image/jpeg', 'image/png']);
    expect(mastodon.state.media.get(ids[0]!)?.bytes.equals(imgs[0]!.bytes)).toBe(true);
  });

  it('waits for an attachment the instance is still processing (202, then 206, then 200)', async () => {
    mastodon.state.mediaProcessingPolls = 1;
    try {
      const ctx = adapterContext(s.running.deps, null);
      const [one] = await images();
      const made = (await mastodonAdapter.uploadImages!(ctx, mastodon.handle, { secret: mastodon.state.token, secondary: null }, [one!])) as {
        mediaIds: string[];
      };
      const polls = mastodon.fake.requests.filter((r) => r.method === 'GET' && r.url === `/api/v1/media/${made.mediaIds[0]}`);
      expect(polls).toHaveLength(2);
      expect(mastodon.state.media.get(made.mediaIds[0]!)?.description).toBe(alt1);
    } finally {
      mastodon.state.mediaProcessingPolls = 0;
    }
  });
});

describe('bluesky image uploads', () => {
  it('uploads blobs and builds the images embed with alt text and aspect ratio, which the PDS accepts', async () => {
    const ctx = adapterContext(s.running.deps, null);
    const imgs = await images();
    const made = (await blueskyAdapter.uploadImages!(ctx, 'ada.bsky.social', { secret: bluesky.state.appPassword, secondary: null }, imgs)) as {
      embed: { images: Array<{ image: { ref: { $link: string }; size: number; mimeType: string }; alt: string; aspectRatio: unknown }> };
    };
    expect(made.embed.images.map((i) => [i.alt, i.aspectRatio, i.image.mimeType])).toEqual([
      [alt1, { width: 320, height: 200 }, 'image/jpeg'],
      [alt2, { width: 200, height: 320 }, 'image/png'],
    ]);
    expect(bluesky.state.blobs.get(made.embed.images[0]!.image.ref.$link)?.bytes.equals(imgs[0]!.bytes)).toBe(true);

    // The fake PDS validates the embed as the lexicon says (alt required, known blobs, ≤ 1,000,000 bytes).
    const session = await sendJson<{ accessJwt: string; did: string }>(ctx, {
      url: `${bluesky.env.BLUESKY_SERVICE_URL}/xrpc/com.atproto.server.createSession`,
      method: 'POST',
      what: 'createSession',
      body: JSON.stringify({ identifier: 'ada.bsky.social', password: bluesky.state.appPassword }),
      headers: { 'content-type': 'application/json' },
    });
    const create = (embed: unknown, rkey: string) =>
      sendJson(ctx, {
        url: `${bluesky.env.BLUESKY_SERVICE_URL}/xrpc/com.atproto.repo.createRecord`,
        method: 'POST',
        what: 'createRecord',
        body: JSON.stringify({
          repo: session.did,
          collection: 'app.bsky.feed.post',
          rkey,
          record: { $type: 'app.bsky.feed.post', text: 'Two pictures', createdAt: new Date().toISOString(), embed },
        }),
        headers: { authorization: `Bearer ${session.accessJwt}`, 'content-type': 'application/json' },
      });
    await create(made.embed, '3kpics0000001');
    expect((bluesky.state.records.get('3kpics0000001')?.embed as { images: Array<{ alt: string }> }).images.map((i) => i.alt)).toEqual([alt1, alt2]);
    const noAlt = { ...made.embed, images: made.embed.images.map(({ alt: _alt, ...rest }) => rest) };
    await expect(create(noAlt, '3kpics0000002')).rejects.toThrow(/must have the property "alt"/);
  });

  it('refuses an image over 1,000,000 bytes before sending it; fitForPlatform makes it fit', async () => {
    const ctx = adapterContext(s.running.deps, null);
    const big = await noise(2400, 1600);
    expect(big.length).toBeGreaterThan(1_000_000);
    const creds = { secret: bluesky.state.appPassword, secondary: null };
    const before = bluesky.state.blobs.size;
    await expect(
      blueskyAdapter.uploadImages!(ctx, 'ada.bsky.social', creds, [{ bytes: big, contentType: 'image/jpeg', altText: 'noise', width: 2400, height: 1600 }]),
    ).rejects.toMatchObject({ kind: 'invalid_input', field: 'media' });
    expect(bluesky.state.blobs.size).toBe(before);
    const fitted = await fitForPlatform(big, 'bluesky');
    const made = (await blueskyAdapter.uploadImages!(ctx, 'ada.bsky.social', creds, [
      { bytes: fitted.bytes, contentType: 'image/jpeg', altText: 'noise', width: fitted.width, height: fitted.height },
    ])) as { embed: { images: Array<{ image: { size: number } }> } };
    expect(made.embed.images[0]!.image.size).toBeLessThanOrEqual(1_000_000);
  });
});

describe('downloading an upstream image', () => {
  it('goes through the outbound client, strips the metadata, and refuses private addresses', async () => {
    const got = await downloadImage(s.running.deps, `${cdn.url}/photo.jpg`);
    expect(got.info).toEqual({ format: 'jpeg', width: 800, height: 1200, frames: 1 });
    expect(hasGpsIfd((await sharp(got.bytes).metadata()).exif)).toBe(false);
    await expect(downloadImage(s.running.deps, `${cdn.url}/missing.jpg`)).rejects.toMatchObject({ status: 502, code: 'backend_unavailable' });
    await expect(downloadImage(s.running.deps, 'https://10.1.2.3/photo.jpg')).rejects.toMatchObject({ status: 502 });
    await expect(downloadImage(s.running.deps, 'http://example.com/photo.jpg')).rejects.toMatchObject({ status: 502 });
  });
});
