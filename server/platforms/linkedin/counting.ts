// LinkedIn's counting (docs/drafting.md, "Platform variants").
import type { PlatformCountingRules } from '../counting.js';

export const linkedinCounting: PlatformCountingRules = {
  rules: {
    platform: 'linkedin',
    limit: 3000,
    counting: 'utf16_code_units',
    urlLength: null,
    hashtagNorm: 3,
    maxLinks: null,
    maxBytes: null,
    publishable: true,
  },
  count: (text: string) => text.length,
};
