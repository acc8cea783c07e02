// Threads, in one folder:
//   adapter.ts   the Threads API client: container then threads_publish, replies, images by public address,
//                the daily publishing quota, read-back of the account's posts after an unknown outcome
//   counting.ts  500 characters, an emoji counted as its UTF-8 bytes, 5 links
//   media.ts     20 images (a carousel), JPEG and PNG, 8 MB, 1440 wide
//   oauth.ts     sign in (the short-lived token exchanged for the long-lived one, refreshed)
// Its fake: test/support/fakes/threads.ts (tests: test/integration/publish-platforms.test.ts).
import type { PostingPlatform } from '../platform.js';
import { threadsAdapter } from './adapter.js';
import { threadsCounting } from './counting.js';
import { threadsMedia } from './media.js';
import { threadsOAuth } from './oauth.js';

export const threads = {
  name: 'threads',
  adapter: threadsAdapter,
  counting: threadsCounting,
  media: threadsMedia,
  oauth: threadsOAuth,
  manualPostHosts: ['threads.net', 'www.threads.net', 'threads.com', 'www.threads.com'],
} satisfies PostingPlatform;
