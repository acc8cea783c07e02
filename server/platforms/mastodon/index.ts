// Mastodon, in one folder:
//   adapter.ts   the API client (any instance): probe, timeline, publish with an Idempotency-Key, media upload
//   counting.ts  500 graphemes, URLs as 23, the content warning counted (StatusLengthValidator)
//   media.ts     4 images, 16 MB, alt text 1,500
//   oauth.ts     sign in on the person's instance (app registered per instance, PKCE)
// Its fake: startMastodonFake in test/support/platforms.ts (tests: test/integration/publish-*.test.ts).
import type { PostingPlatform } from '../platform.js';
import { mastodonAdapter } from './adapter.js';
import { mastodonCounting } from './counting.js';
import { mastodonMedia } from './media.js';
import { mastodonOAuth } from './oauth.js';

export const mastodon = {
  name: 'mastodon',
  adapter: mastodonAdapter,
  counting: mastodonCounting,
  media: mastodonMedia,
  oauth: mastodonOAuth,
  handleForm: /^@[^@\s]+@[^@\s]+\.[^@\s]+$/,
} satisfies PostingPlatform;
