// The registry of platforms. Each platform the service posts to is one folder here
// (server/platforms/<name>/: its API client and read-back in adapter.ts, its counting rules in
// counting.ts, its media limits in media.ts, its sign-in in oauth.ts, all gathered in its
// index.ts, whose header names its fake), and one line of PLATFORMS below. rss and archive, which
// are sources only, stay in server/adapters/. docs/contributing.md ("Adding a platform") says
// what a new platform adds.
import { archiveAdapter } from '../adapters/archive/adapter.js';
import { rssAdapter } from '../adapters/rss.js';
import type { Platform, PlatformAdapter } from '../adapters/types.js';
import { bluesky } from './bluesky/index.js';
import type { TargetPlatform } from './counting.js';
import { linkedin } from './linkedin/index.js';
import { mastodon } from './mastodon/index.js';
import type { PostingPlatform } from './platform.js';
import { isTargetPlatform, TARGET_PLATFORMS } from './rules.js';
import { threads } from './threads/index.js';
import { x } from './x/index.js';

export type { PostingPlatform } from './platform.js';

/** The platforms the service posts to (a variant can be written for each: the contract's `TargetPlatform`; their order and counting rules are rules.ts's). */
const PLATFORMS: { [P in TargetPlatform]: PostingPlatform & { name: P } } = {
  mastodon,
  bluesky,
  x,
  linkedin,
  threads,
};

export { isTargetPlatform, TARGET_PLATFORMS } from './rules.js';

/** The platform's folder. */
export const platformOf = (p: TargetPlatform): PostingPlatform => PLATFORMS[p];

/** The folder of a platform named by a string (a stored row's), or null when it is no platform the service posts to. */
export const postingPlatform = (p: string): PostingPlatform | null => (isTargetPlatform(p) ? PLATFORMS[p] : null);

const ADAPTERS: Record<Platform, PlatformAdapter> = {
  rss: rssAdapter,
  archive: archiveAdapter,
  ...(Object.fromEntries(TARGET_PLATFORMS.map((p) => [p, PLATFORMS[p].adapter])) as Record<TargetPlatform, PlatformAdapter>),
};

export function adapterFor(platform: string): PlatformAdapter {
  const a = ADAPTERS[platform as Platform];
  if (!a) throw new Error(`no adapter for platform ${platform}`);
  return a;
}

/** Whether the service posts to the platform (its adapter publishes). */
export const posts = (platform: string): boolean => Boolean(ADAPTERS[platform as Platform]?.publish);

/** The platforms the service posts to, in the registry's order. */
export const POSTING_PLATFORMS: Platform[] = TARGET_PLATFORMS.filter(posts);
