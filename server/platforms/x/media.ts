// X's limits on a post's media (as documented in November 2026): "Media best practices" and POST
// /2/media/upload (docs.x.com): up to 4 images, or one animated GIF alone; images up to 5 MB, GIFs
// up to 15 MB; JPEG, PNG, GIF, WebP; alt text up to 1,000 characters.
import type { PlatformMediaLimits } from '../media.js';

export const xMedia: PlatformMediaLimits = {
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
};
