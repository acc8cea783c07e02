// Bluesky's limits on a post's media (as documented in November 2026): the lexicon
// app.bsky.embed.images (github.com/bluesky-social/atproto, lexicons/app/bsky/embed/images.json):
// at most 4 images, each blob `image/*` of at most 1,000,000 bytes, `alt` required; the official
// app scales images into 2000×2000 (social-app POST_IMG_MAX) and allows 2,000 characters of alt
// text. Images do not animate (the app posts GIFs as video instead).
import type { PlatformMediaLimits } from '../media.js';

export const blueskyMedia: PlatformMediaLimits = {
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
};
