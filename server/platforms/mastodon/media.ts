// Mastodon's limits on a post's media (as documented in November 2026; the numbers are Mastodon's):
// GET /api/v2/instance `configuration.media_attachments` and `statuses` of a default Mastodon 4.x
// server (docs.joinmastodon.org/entities/Instance/#media_attachments): image_size_limit 16,777,216
// bytes, image_matrix_limit 33,177,600 pixels, max_media_attachments 4, supported_mime_types with
// image/jpeg, png, gif, webp (and heic, avif); a description (alt text) of at most 1,500
// characters (MediaAttachment::MAX_DESCRIPTION_LENGTH). GIFs become looping videos (gifv), so
// animation is kept.
import type { PlatformMediaLimits } from '../media.js';

export const mastodonMedia: PlatformMediaLimits = {
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
};
