// LinkedIn's limits on a post's media (as documented in November 2026): the Images API and Posts
// API (learn.microsoft.com/linkedin/marketing): JPG, PNG, GIF (up to 250 frames); at most
// 36,152,320 pixels per image; a MultiImage post holds up to 20 images; altText up to 4,086
// characters. No byte limit is documented (none is checked).
import type { PlatformMediaLimits } from '../media.js';

export const linkedinMedia: PlatformMediaLimits = {
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
};
