// The platforms an account can be connected to by signing in: those whose folder has an oauth.ts
// (server/platforms/<name>/oauth.ts, in its index.ts); the flow itself is server/services/oauth/.
import type { OAuthPlatform, SignInPlatformName } from '../services/oauth/platform.js';
import { platformOf, TARGET_PLATFORMS } from './index.js';

export const OAUTH_PLATFORMS = Object.fromEntries(
  TARGET_PLATFORMS.flatMap((p) => {
    const signIn = platformOf(p).oauth;
    return signIn ? [[signIn.platform, signIn]] : [];
  }),
) as Record<SignInPlatformName, OAuthPlatform>;

/** The sign-in of `platform`, or null when it has none (bluesky, rss, archive). */
export function oauthFor(platform: string): OAuthPlatform | null {
  return Object.hasOwn(OAUTH_PLATFORMS, platform) ? OAUTH_PLATFORMS[platform as SignInPlatformName] : null;
}
