// Each platform's media limits as a pure check, and the re-encoding that makes an image fit them:
// scaled (aspect kept, never up), converted, re-encoded under the byte limit, metadata gone.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { checkMedia, fitForPlatform, MEDIA_LIMITS, type MediaFacts } from '../../server/services/media-limits.js';
import { fitImage, inspectImage, sniffImage } from '../../server/services/images.js';
import { animatedGif, hasGpsIfd, noise, photoWithGps } from '../support/images.js';

const image = (over: Partial<MediaFacts> = {}): MediaFacts => ({
  id: 'med_1',
  type: 'image',
  format: 'jpeg',
  sizeBytes: 400_000,
  width: 1200,
  height: 800,
  frames: 1,
  altText: 'A chart',
  ...over,
});
const codes = (items: MediaFacts[], p: Parameters<typeof checkMedia>[1]) => checkMedia(items, p).map((x) => x.code);

describe('checkMedia', () => {
  it('counts items per platform: 4 on Mastodon, Bluesky and X, 20 on LinkedIn and Threads', () => {
    const five = Array.from({ length: 5 }, (_, i) => image({ id: `med_${i}` }));
    for (const p of ['mastodon', 'bluesky', 'x'] as const) expect(codes(five, p)).toEqual(['too_many_items']);
    for (const p of ['linkedin', 'threads'] as const) expect(codes(five, p)).toEqual([]);
    expect(codes(five.slice(0, 4), 'bluesky')).toEqual([]);
  });

  it('knows the byte limits: Bluesky 1,000,000 per image, X 5 MB (GIF 15 MB), Threads 8 MB, Mastodon 16 MiB; all fixable by re-encoding', () => {
    const [p] = checkMedia([image({ sizeBytes: 1_000_001 })], 'bluesky');
    expect(p).toMatchObject({ code: 'too_many_bytes', fixable: true, severity: 'error', mediaId: 'med_1' });
    expect(codes([image({ sizeBytes: 1_000_000 })], 'bluesky')).toEqual([]);
    expect(codes([image({ sizeBytes: 6_000_000 })], 'x')).toEqual(['too_many_bytes']);
    expect(codes([image({ type: 'gif', format: 'gif', sizeBytes: 6_000_000 })], 'x')).toEqual([]);
    expect(codes([image({ sizeBytes: 9_000_000 })], 'threads')).toEqual(['too_many_bytes']);
    expect(codes([image({ sizeBytes: 9_000_000 })], 'mastodon')).toEqual([]);
    expect(codes([image({ sizeBytes: 17_000_000 })], 'mastodon')).toEqual(['too_many_bytes']);
    expect(codes([image({ sizeBytes: null })], 'bluesky')).toEqual([]); // unknown until read
  });

  it('knows sizes, formats, animation and alt text rules', () => {
    expect(codes([image({ width: 8000, height: 4500 })], 'mastodon')).toEqual(['too_many_pixels']);
    expect(checkMedia([image({ width: 4000, height: 3000 })], 'bluesky')[0]).toMatchObject({ code: 'too_wide', severity: 'warning', fixable: true });
    expect(codes([image({ width: 2000, height: 1000 })], 'threads')).toEqual(['too_wide']);
    expect(codes([image({ format: 'webp' })], 'threads')).toEqual(['format_not_taken']);
    expect(codes([image({ format: 'gif', type: 'gif', frames: 12 })], 'bluesky')).toEqual(['format_not_taken', 'animation_lost']);
    expect(codes([image({ format: 'gif', type: 'gif', frames: 12 })], 'mastodon')).toEqual([]);
    expect(codes([image({ format: 'gif', type: 'gif', frames: 12 }), image({ id: 'med_2' })], 'x')).toEqual(['animated_not_alone']);
    expect(checkMedia([image({ altText: null })], 'mastodon')[0]).toMatchObject({ code: 'missing_alt_text', severity: 'warning', fixable: false });
    expect(codes([image({ altText: 'ä'.repeat(1501) })], 'mastodon')).toEqual(['alt_text_too_long']);
    expect(codes([image({ altText: '👩‍💻'.repeat(400) })], 'x')).toEqual(['alt_text_too_long']); // 3 code points each: 1,200
    expect(codes([image({ altText: 'x'.repeat(4086) })], 'linkedin')).toEqual([]);
    expect(codes([image({ type: 'video', format: null })], 'mastodon')).toEqual(['not_an_image']);
    expect(MEDIA_LIMITS.bluesky.maxImageBytes).toBe(1_000_000);
  });
});

describe('fitting an image to a platform', () => {
  it('Bluesky: a 3000×2000 photo of 3+ MB becomes ≤ 2000×2000 and ≤ 1,000,000 bytes, aspect kept, GPS gone', async () => {
    const big = await noise(3000, 2000);
    expect(big.length).toBeGreaterThan(1_000_000);
    const fitted = await fitForPlatform(big, 'bluesky');
    expect(fitted.changed).toBe(true);
    expect(fitted.bytes.length).toBeLessThanOrEqual(1_000_000);
    expect(fitted.width).toBeLessThanOrEqual(2000);
    expect(Math.abs(fitted.width / fitted.height - 1.5)).toBeLessThan(0.01);
    const meta = await sharp(fitted.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', fitted.width, fitted.height]);

    const withGps = await fitForPlatform(await photoWithGps(2600, 1300), 'bluesky');
    expect(hasGpsIfd((await sharp(withGps.bytes).metadata()).exif)).toBe(false);
    expect([withGps.width, withGps.height]).toEqual([1000, 2000]); // orientation applied, then scaled
  });

  it('converts what a platform does not take; keeps what already fits untouched', async () => {
    const webp = await sharp({ create: { width: 2000, height: 1000, channels: 3, background: 'teal' } })
      .webp()
      .toBuffer();
    const threads = await fitForPlatform(webp, 'threads');
    expect([sniffImage(threads.bytes), threads.width, threads.height]).toEqual(['jpeg', 1440, 720]);
    const small = await sharp({ create: { width: 800, height: 600, channels: 3, background: 'teal' } })
      .jpeg()
      .toBuffer();
    const same = await fitForPlatform(small, 'mastodon');
    expect(same).toMatchObject({ changed: false, width: 800, height: 600 });
    expect(same.bytes).toBe(small);
    // Mastodon's pixel budget: 8000×4500 (36 MP) becomes ≤ 33,177,600 pixels with its aspect.
    const wide = await sharp({ create: { width: 8000, height: 4500, channels: 3, background: 'navy' } })
      .png()
      .toBuffer();
    const m = await fitForPlatform(wide, 'mastodon');
    expect(m.width * m.height).toBeLessThanOrEqual(33_177_600);
    expect(m.width).toBeGreaterThan(7000);
  });

  it('a PNG with transparency stays PNG and shrinks; an animated GIF keeps its frames when scaled', async () => {
    const raw = await noise(1500, 1500, 'png');
    const alpha = await sharp(raw).ensureAlpha(0.5).png().toBuffer();
    const fitted = await fitImage(alpha, { maxBytes: 1_000_000, maxWidth: 2000, maxHeight: 2000, formats: ['jpeg', 'png'] });
    expect(sniffImage(fitted.bytes)).toBe('png');
    expect(fitted.bytes.length).toBeLessThanOrEqual(1_000_000);
    const gif = await fitImage(await animatedGif(4, 400, 300), { maxBytes: null, maxWidth: 200, maxHeight: null, formats: ['gif'] });
    expect(await inspectImage(gif.bytes)).toEqual({ format: 'gif', width: 200, height: 150, frames: 4 });
  });
});
