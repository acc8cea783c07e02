// X's counting (docs/drafting.md, "Platform variants").
import twitterText from 'twitter-text';
import type { PlatformCountingRules } from '../counting.js';

export const xCounting: PlatformCountingRules = {
  // twitter-text's weighted length: most CJK and emoji weigh 2, every URL 23.
  rules: { platform: 'x', limit: 280, counting: 'weighted', urlLength: 23, hashtagNorm: 2, maxLinks: null, maxBytes: null, publishable: true },
  count: (text: string) => twitterText.parseTweet(text).weightedLength,
};
