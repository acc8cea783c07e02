// LinkedIn, in one folder:
//   adapter.ts   the versioned REST client: userinfo, POST /rest/posts in the little text format (escaped),
//                the Images API, read-back of the author's posts after an unknown outcome; no threads
//   counting.ts  3,000 characters (UTF-16 code units) of the commentary as the reader sees it
//   media.ts     20 images, 36,152,320 pixels, alt text 4,086
//   oauth.ts     sign in (OpenID Connect + w_member_social; tokens of 60 days)
// Its fake: test/support/fakes/linkedin.ts (tests: test/integration/publish-platforms.test.ts).
import type { PostingPlatform } from '../platform.js';
import { linkedinAdapter } from './adapter.js';
import { linkedinCounting } from './counting.js';
import { linkedinMedia } from './media.js';
import { linkedinOAuth } from './oauth.js';

export const linkedin = {
  name: 'linkedin',
  adapter: linkedinAdapter,
  counting: linkedinCounting,
  media: linkedinMedia,
  oauth: linkedinOAuth,
  manualPostHosts: ['linkedin.com', 'www.linkedin.com'],
} satisfies PostingPlatform;
