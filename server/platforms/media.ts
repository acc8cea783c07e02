// What a platform's limits on a post's media are made of. Each platform's own numbers, with where
// they come from, live in its folder (server/platforms/<name>/media.ts); the pure check of an
// artifact's media against them is services/media-limits.ts.
import type { ImageFormat } from '../services/images.js';

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
