// The registry of platforms: one adapter per platform, behind the one interface of
// server/adapters/types.ts. Each platform that posts has its folder here (server/platforms/<name>/:
// its API client and read-back in adapter.ts, its counting rules in counting.ts, its fake named in
// adapter.ts's header); rss and archive, which are sources only, stay in server/adapters/.
// docs/contributing.md ("Adding a platform") says what a new platform adds.
import { archiveAdapter } from '../adapters/archive/adapter.js';
import { rssAdapter } from '../adapters/rss.js';
import type { Platform, PlatformAdapter } from '../adapters/types.js';
import { blueskyAdapter } from './bluesky/adapter.js';
import { mastodonAdapter } from './mastodon/adapter.js';
import { linkedinAdapter } from './linkedin/adapter.js';
import { threadsAdapter } from './threads/adapter.js';
import { xAdapter } from './x/adapter.js';

const ADAPTERS: Record<Platform, PlatformAdapter> = {
  rss: rssAdapter,
  mastodon: mastodonAdapter,
  bluesky: blueskyAdapter,
  archive: archiveAdapter,
  x: xAdapter,
  linkedin: linkedinAdapter,
  threads: threadsAdapter,
};

export function adapterFor(platform: string): PlatformAdapter {
  const a = ADAPTERS[platform as Platform];
  if (!a) throw new Error(`no adapter for platform ${platform}`);
  return a;
}

/** Whether the service posts to the platform (its adapter publishes). */
export const posts = (platform: string): boolean => Boolean(ADAPTERS[platform as Platform]?.publish);

/** The platforms the service posts to, in the registry's order. */
export const POSTING_PLATFORMS: Platform[] = (Object.keys(ADAPTERS) as Platform[]).filter(posts);
