// The platforms an account can be connected to by signing in, each one's specifics in its own
// folder (server/platforms/<name>/oauth.ts); the flow itself is server/services/oauth/.
import type { OAuthPlatform, SignInPlatformName } from '../services/oauth/platform.js';
import { linkedinOAuth } from './linkedin/oauth.js';
import { mastodonOAuth } from './mastodon/oauth.js';
import { threadsOAuth } from './threads/oauth.js';
import { xOAuth } from './x/oauth.js';

export const OAUTH_PLATFORMS: Record<SignInPlatformName, OAuthPlatform> = {
  mastodon: mastodonOAuth,
  x: xOAuth,
  linkedin: linkedinOAuth,
  threads: threadsOAuth,
};

/** The sign-in of `platform`, or null when it has none (bluesky, rss, archive). */
export function oauthFor(platform: string): OAuthPlatform | null {
  return Object.hasOwn(OAUTH_PLATFORMS, platform) ? OAUTH_PLATFORMS[platform as SignInPlatformName] : null;
}
