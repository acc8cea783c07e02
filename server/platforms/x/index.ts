// X, in one folder:
//   adapter.ts   the API v2 client: users/me, timeline, POST /2/tweets as a reply chain, media upload,
//                read-back of the account's posts after an unknown outcome (X takes no idempotency key)
//   counting.ts  twitter-text's weighted 280, URLs as 23
//   media.ts     4 images (or one GIF alone), 5 MB, alt text 1,000
//   oauth.ts     sign in (OAuth 2.0 with PKCE; the refresh token rotates)
// Its fake: test/support/fakes/x.ts (tests: test/integration/publish-platforms.test.ts).
import type { PostingPlatform } from '../platform.js';
import { xAdapter } from './adapter.js';
import { xCounting } from './counting.js';
import { xMedia } from './media.js';
import { xOAuth } from './oauth.js';

export const x = {
  name: 'x',
  adapter: xAdapter,
  counting: xCounting,
  media: xMedia,
  oauth: xOAuth,
  manualPostHosts: ['x.com', 'www.x.com', 'mobile.x.com', 'twitter.com', 'www.twitter.com', 'mobile.twitter.com'],
} satisfies PostingPlatform;
