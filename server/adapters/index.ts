// The adapters by platform.
import { archiveAdapter } from './archive/adapter.js';
import { blueskyAdapter } from './bluesky.js';
import { mastodonAdapter } from './mastodon.js';
import { rssAdapter } from './rss.js';
import type { Platform, PlatformAdapter } from './types.js';

export * from './types.js';

// x, linkedin and threads connect by signing in (platforms/oauth.ts); their adapters come with publishing to them.
const ADAPTERS: Partial<Record<Platform, PlatformAdapter>> = {
  rss: rssAdapter,
  mastodon: mastodonAdapter,
  bluesky: blueskyAdapter,
  archive: archiveAdapter,
};

export function adapterFor(platform: string): PlatformAdapter {
  const a = ADAPTERS[platform as Platform];
  if (!a) throw new Error(`no adapter for platform ${platform}`);
  return a;
}
