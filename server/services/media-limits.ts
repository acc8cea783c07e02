// The pure check of an artifact's media against a platform's limits, and the fitting of an image
// to them. Each platform's limits, with where its numbers come from, live in its folder
// (server/platforms/<name>/media.ts), found through the registry (server/platforms/index.ts).
import type { TargetPlatform } from '../platforms/counting.js';
import { platformOf, TARGET_PLATFORMS } from '../platforms/index.js';
import type { PlatformMediaLimits } from '../platforms/media.js';
import { fitImage, ImageError, sniffImage, type FitLimits, type Fitted, type ImageFormat } from './images.js';

export type { PlatformMediaLimits } from '../platforms/media.js';

/** The platforms whose media are checked: those the service posts to. */
export type MediaPlatform = TargetPlatform;

export const MEDIA_LIMITS = Object.fromEntries(TARGET_PLATFORMS.map((p) => [p, platformOf(p).media])) as Record<MediaPlatform, PlatformMediaLimits>;

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
