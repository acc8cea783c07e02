// The counting rules of every platform the service posts to, by name, and nothing else: pure (no
// I/O, no API client), so that the review desk bundles exactly the rules the server counts with
// (services/platform-text.ts, docs/desk.md). The registry (index.ts) gives each platform's folder
// with these same rules, and its type requires one folder per name here.
import { blueskyCounting } from './bluesky/counting.js';
import type { PlatformCountingRules, TargetPlatform } from './counting.js';
import { linkedinCounting } from './linkedin/counting.js';
import { mastodonCounting } from './mastodon/counting.js';
import { threadsCounting } from './threads/counting.js';
import { xCounting } from './x/counting.js';

const COUNTING: { [P in TargetPlatform]: PlatformCountingRules } = {
  mastodon: mastodonCounting,
  bluesky: blueskyCounting,
  x: xCounting,
  linkedin: linkedinCounting,
  threads: threadsCounting,
};

/** The platforms a variant can be written for, in this order (the contract's `TargetPlatform`). */
export const TARGET_PLATFORMS = Object.keys(COUNTING) as TargetPlatform[];

export const isTargetPlatform = (p: string): p is TargetPlatform => Object.hasOwn(COUNTING, p);

/** How a platform counts a post. */
export const countingOf = (p: TargetPlatform): PlatformCountingRules => COUNTING[p];
