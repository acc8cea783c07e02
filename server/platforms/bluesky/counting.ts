// Bluesky's counting (docs/drafting.md, "Platform variants").
import { graphemeCount, type PlatformCountingRules } from '../counting.js';

export const blueskyCounting: PlatformCountingRules = {
  // app.bsky.feed.post: text maxGraphemes 300, maxLength 3000 (bytes). Links count in full: the post's text is sent as written.
  rules: { platform: 'bluesky', limit: 300, counting: 'graphemes', urlLength: null, hashtagNorm: null, maxLinks: null, maxBytes: 3000, publishable: true },
  count: (text: string) => graphemeCount(text),
};
