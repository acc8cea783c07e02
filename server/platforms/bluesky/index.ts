// Bluesky, in one folder:
//   adapter.ts   the AT Protocol client: session, author feed, records with fixed keys (exactly once), blobs
//   counting.ts  300 graphemes and 3,000 bytes, the `CW:` line counted
//   facets.ts    links, mentions and hashtags as the record's facets
//   media.ts     4 images, 1,000,000 bytes, into 2000×2000
// No sign-in: an app password is connected (POST /accounts/connect).
// Its fake: startBlueskyFake in test/support/platforms.ts (tests: test/integration/publish-*.test.ts).
import type { PostingPlatform } from '../platform.js';
import { blueskyAdapter } from './adapter.js';
import { blueskyCounting } from './counting.js';
import { blueskyMedia } from './media.js';

export const bluesky = {
  name: 'bluesky',
  adapter: blueskyAdapter,
  counting: blueskyCounting,
  media: blueskyMedia,
  handleForm: /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i,
} satisfies PostingPlatform;
