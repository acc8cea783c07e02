// What a platform the service posts to is: one folder of server/platforms/ whose index.ts exports
// one `PostingPlatform`, listed once in the registry (server/platforms/index.ts). The publishing
// machinery (services/publishing.ts, publish-media.ts, media-limits.ts, variants.ts,
// platform-text.ts, destinations.ts, artifacts.ts, pipelines.ts) reads a platform only through
// this shape and the adapter it holds; docs/contributing.md ("Adding a platform") walks through it.
import type { PlatformAdapter } from '../adapters/types.js';
import type { OAuthPlatform } from '../services/oauth/platform.js';
import type { PlatformCountingRules, TargetPlatform } from './counting.js';
import type { PlatformMediaLimits } from './media.js';

export interface PostingPlatform {
  /** Its name, as the contract spells it (`TargetPlatform`, `Platform`). */
  readonly name: TargetPlatform;
  /**
   * Its API client (adapter.ts): handle form, probe, read the account's posts, publish a part
   * (exactly once: an idempotency key upstream, or read-back after an unknown outcome), upload
   * images, and what it refuses before anything is queued.
   */
  readonly adapter: PlatformAdapter;
  /** How it counts a post (counting.ts): the limit, the counting, the per-post caps. */
  readonly counting: PlatformCountingRules;
  /** Its limits on a post's images (media.ts). */
  readonly media: PlatformMediaLimits;
  /** Connecting an account by signing in (oauth.ts); absent: only a pasted credential (Bluesky's app password). */
  readonly oauth?: OAuthPlatform;
  /**
   * The hosts at which a post made by hand on it is (`POST /artifacts/{id}/mark-published`), for a
   * platform the contract lets a person record such a post for.
   */
  readonly manualPostHosts?: readonly string[];
  /**
   * A handle form that names this platform by itself (`@user@instance` is Mastodon): the platform
   * of a pipeline whose handle no connected account has. Absent: its handles are not told apart.
   */
  readonly handleForm?: RegExp;
}
