// Threads' limits on a post's media (as documented in November 2026): the Threads API "Image
// specifications" and carousel posts (developers.facebook.com/docs/threads): JPEG and PNG, at most
// 8 MB, width 320 to 1440 (wider is scaled down), aspect ratio at most 10:1; a carousel holds up to
// 20 items; alt_text up to 1,000 characters.
import type { PlatformMediaLimits } from '../media.js';

export const threadsMedia: PlatformMediaLimits = {
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
};
