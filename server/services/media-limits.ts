// Each platform's limits on a post's media, and the pure check of an artifact's media against
// them. Sources (as documented in November 2026; the numbers are the platforms', not ours):
// - Mastodon: GET /api/v2/instance `configuration.media_attachments` and `statuses` of a default
//   Mastodon 4.x server (docs.joinmastodon.org/entities/Instance/#media_attachments):
//   image_size_limit 16,777,216 bytes, image_matrix_limit 33,177,600 pixels, max_media_attachments 4,
//   supported_mime_types with image/jpeg, png, gif, webp (and heic, avif); a description (alt text)
//   of at most 1,500 characters (MediaAttachment::MAX_DESCRIPTION_LENGTH). GIFs become looping
//   videos (gifv), so animation is kept.
// - Bluesky: the lexicon app.bsky.embed.images (github.com/bluesky-social/atproto, lexicons/app/bsky/
//   embed/images.json): at most 4 images, each blob `image/*` of at most 1,000,000 bytes, `alt`
//   required; the official app scales images into 2000×2000 (social-app POST_IMG_MAX) and allows
//   2,000 characters of alt text. Images do not animate (the app posts GIFs as video instead).
// - X: "Media best practices" and POST /2/media/upload (docs.x.com): up to 4 images, or one
//   animated GIF alone; images up to 5 MB, GIFs up to 15 MB; JPEG, PNG, GIF, WebP; alt text up to
//   1,000 characters.
// - LinkedIn: the Images API and Posts API (learn.microsoft.com/linkedin/marketing): JPG, PNG, GIF
//   (up to 250 frames); at most 36,152,320 pixels per image; a MultiImage post holds up to 20 images;
//   altText up to 4,086 characters. No byte limit is documented (none is checked).
// - Threads: the Threads API "Image specifications" and carousel posts (developers.facebook.com/
//   docs/threads): JPEG and PNG, at most 8 MB, width 320 to 1440 (wider is scaled down), aspect
//   ratio at most 10:1; a carousel holds up to 20 items; alt_text up to 1,000 characters.
import { fitImage, ImageError, sniffImage, type FitLimits, type Fitted, type ImageFormat } from './images.js';

export type MediaPlatform = 'mastodon' | 'bluesky' | 'x' | 'linkedin' | 'threads';

export interface PlatformMediaLimits {
  /** Most media items in one post. */
  maxItems: number;
  /** Largest still image, in bytes (null: not documented). */
  maxImageBytes: number | null;
  /** Largest GIF, in bytes (null: as images). */
  maxGifBytes: number | null;
  /** Most pixels of one image (null: none). */
  maxPixels: number | null;
  /** Largest width and height an image is shown at without being scaled (null: none). */
  maxWidth: number | null;
  maxHeight: number | null;
  /** Image formats taken. */
  formats: ImageFormat[];
  /** `kept`: animated images play; `first_frame`: only the first frame is shown; `alone`: one animated GIF per post, without other media. */
  animation: 'kept' | 'first_frame' | 'alone';
  /** Longest alt text, in characters. */
  maxAltText: number;
  /** Whether it takes video at all through this service (we upload images only). */
  imagesOnly: true;
}

export const MEDIA_LIMITS: Record<MediaPlatform, PlatformMediaLimits> = {
  mastodon: {
    maxItems: 4,
    maxImageBytes: 16_777_216,
    maxGifBytes: null,
    maxPixels: 33_177_600,
    maxWidth: null,
    maxHeight: null,
    formats: ['jpeg', 'png', 'gif', 'webp'],
    animation: 'kept',
    maxAltText: 1500,
    imagesOnly: true,
  },
  bluesky: {
    maxItems: 4,
    maxImageBytes: 1_000_000,
    maxGifBytes: null,
    maxPixels: null,
    maxWidth: 2000,
    maxHeight: 2000,
    formats: ['jpeg', 'png', 'webp'],
    animation: 'first_frame',
    maxAltText: 2000,
    imagesOnly: true,
  },
  x: {
    maxItems: 4,
    maxImageBytes: 5 * 1024 * 1024,
    maxGifBytes: 15 * 1024 * 1024,
    maxPixels: null,
    maxWidth: null,
    maxHeight: null,
    formats: ['jpeg', 'png', 'gif', 'webp'],
    animation: 'alone',
    maxAltText: 1000,
    imagesOnly: true,
  },
  linkedin: {
    maxItems: 20,
    maxImageBytes: null,
    maxGifBytes: null,
    maxPixels: 36_152_320,
    maxWidth: null,
    maxHeight: null,
    formats: ['jpeg', 'png', 'gif'],
    animation: 'kept',
    maxAltText: 4086,
    imagesOnly: true,
  },
  threads: {
    maxItems: 20,
    maxImageBytes: 8 * 1024 * 1024,
    maxGifBytes: null,
    maxPixels: null,
    maxWidth: 1440,
    maxHeight: null,
    formats: ['jpeg', 'png'],
    animation: 'first_frame',
    maxAltText: 1000,
    imagesOnly: true,
  },
};

/** What is known of one item when it is checked (sizes are null until its bytes were read). */
export interface MediaFacts {
  id: string;
  type: 'image' | 'gif' | 'video' | 'audio' | 'other';
  format: ImageFormat | null;
  sizeBytes: number | null;
  width: number | null;
  height: number | null;
  frames: number | null;
  altText: string | null;
}

export type MediaProblemCode =
  | 'too_many_items'
  | 'not_an_image'
  | 'format_not_taken'
  | 'too_many_bytes'
  | 'too_many_pixels'
  | 'too_wide'
  | 'animation_lost'
  | 'animated_not_alone'
  | 'missing_alt_text'
  | 'alt_text_too_long';

export interface MediaProblem {
  /** The item's id; null for a problem of the whole list. */
  mediaId: string | null;
  code: MediaProblemCode;
  message: string;
  /** True when `fitImage` with the platform's limits (services/images.ts, `fitForPlatform`) fixes it: scale, convert, re-encode. */
  fixable: boolean;
  /** `error` stops the publish; `warning` is worth telling the author (the post still works). */
  severity: 'error' | 'warning';
}

const mb = (n: number) => `${(n / 1_000_000).toFixed(n % 1_000_000 ? 1 : 0)} MB`;

/**
 * Checks an artifact's media against a platform's limits, item by item, without touching any
 * bytes. Size checks need `sizeBytes`/`width`/`height`; an unknown one is not checked (read the
 * bytes first to know). Problems marked `fixable` go away once the image is passed through
 * `fitForPlatform`; the others need the author (drop an item, write alt text).
 */
export function checkMedia(items: MediaFacts[], platform: MediaPlatform): MediaProblem[] {
  const l = MEDIA_LIMITS[platform];
  const out: MediaProblem[] = [];
  if (items.length > l.maxItems) {
    out.push({
      mediaId: null,
      code: 'too_many_items',
      message: `${platform} takes at most ${l.maxItems} images in one post; this one has ${items.length}.`,
      fixable: false,
      severity: 'error',
    });
  }
  const animated = items.filter((m) => (m.frames ?? 1) > 1 || (m.type === 'gif' && m.format === 'gif'));
  if (l.animation === 'alone' && animated.length && items.length > 1) {
    out.push({
      mediaId: animated[0]!.id,
      code: 'animated_not_alone',
      message: `${platform} takes an animated GIF only alone in its post; this one has ${items.length} media.`,
      fixable: false,
      severity: 'error',
    });
  }
  for (const m of items) {
    const at = (code: MediaProblemCode, message: string, fixable: boolean, severity: MediaProblem['severity'] = 'error') =>
      out.push({ mediaId: m.id, code, message, fixable, severity });
    if (m.type !== 'image' && m.type !== 'gif') {
      at('not_an_image', `${m.id} is a ${m.type}; only images are published with a post.`, false);
      continue;
    }
    if (!m.altText) at('missing_alt_text', `${m.id} has no alt text.`, false, 'warning');
    else if ([...m.altText].length > l.maxAltText)
      at('alt_text_too_long', `${m.id}'s alt text has ${[...m.altText].length} characters; ${platform} takes at most ${l.maxAltText}.`, false);
    if (m.format && !l.formats.includes(m.format))
      at('format_not_taken', `${platform} does not take ${m.format.toUpperCase()} images; it will be converted to ${l.formats[0]!.toUpperCase()}.`, true);
    const isAnimated = (m.frames ?? 1) > 1;
    if (isAnimated && l.animation === 'first_frame') at('animation_lost', `${platform} shows only the first frame of the animated ${m.id}.`, true, 'warning');
    const limit = m.format === 'gif' && l.maxGifBytes !== null ? l.maxGifBytes : l.maxImageBytes;
    if (limit !== null && m.sizeBytes !== null && m.sizeBytes > limit)
      at('too_many_bytes', `${m.id} has ${m.sizeBytes} bytes; ${platform} takes at most ${mb(limit)} (${limit} bytes).`, true);
    if (m.width && m.height) {
      if (l.maxPixels !== null && m.width * m.height > l.maxPixels)
        at('too_many_pixels', `${m.id} has ${m.width}×${m.height} pixels; ${platform} takes at most ${l.maxPixels}.`, true);
      if ((l.maxWidth !== null && m.width > l.maxWidth) || (l.maxHeight !== null && m.height > l.maxHeight)) {
        at(
          'too_wide',
          `${m.id} is ${m.width}×${m.height}; ${platform} shows at most ${l.maxWidth ?? '∞'}×${l.maxHeight ?? '∞'} and will be sent scaled down.`,
          true,
          'warning',
        );
      }
    }
  }
  return out;
}

/** The limits `fitImage` needs for a platform (largest size, pixels, bytes, formats). */
export function fitLimitsFor(platform: MediaPlatform, format: ImageFormat): FitLimits {
  const l = MEDIA_LIMITS[platform];
  return {
    maxBytes: format === 'gif' && l.maxGifBytes !== null ? l.maxGifBytes : l.maxImageBytes,
    maxWidth: l.maxWidth,
    maxHeight: l.maxHeight,
    maxPixels: l.maxPixels,
    formats: l.formats,
  };
}

/**
 * The image as the platform takes it: scaled into its largest size and pixel count, converted to a
 * format it takes, re-encoded until under its byte limit (an image that already fits comes back
 * unchanged, `changed: false`). Throws ImageError when it cannot fit.
 */
export async function fitForPlatform(bytes: Buffer, platform: MediaPlatform): Promise<Fitted> {
  const format = sniffImage(bytes);
  if (!format) throw new ImageError('unsupported', 'is not a JPEG, PNG, WebP or GIF image');
  return fitImage(bytes, fitLimitsFor(platform, format));
}
