// One interface for every platform: probe a credential, list a handle's posts with their
// engagement metrics, and (where the platform allows it) publish a text, with its images, read
// back after an unknown outcome. Adapters do HTTP only through the shared outbound client and know
// nothing of the database. The publishing machinery (services/publishing.ts, publish-media.ts,
// variants.ts, destinations.ts) knows platforms only through this interface; the registry is
// server/platforms/index.ts.
import type { components } from '../../generated/api.js';
import type { Config } from '../config.js';
import type { OutboundClient } from '../outbound/types.js';
import type { PostExtras } from '../platforms/counting.js';

export type Platform = components['schemas']['Platform'];

export interface AdapterContext {
  outbound: OutboundClient;
  config: Config;
  /** The account's proxy, when it has one: every request of the adapter goes through it. */
  proxyUrl: string | null;
  now: Date;
  /**
   * Kept for the length of one publish run: what an adapter made once and may reuse for every part
   * (Mastodon's verify_credentials, a Bluesky session). Absent: nothing is reused.
   */
  memo?: Map<string, Promise<unknown>>;
}

export interface Credentials {
  /**
   * `auth_material` as connected: a token, an app password, an archive's content; '' for rss. For
   * x, linkedin and threads, the current OAuth access token (whatever obtained or refreshed it).
   */
  secret: string;
  /** `secondary_auth`, when given. */
  secondary: string | null;
}

export interface Metrics {
  likes: number;
  reposts: number;
  replies: number;
  quotes: number;
}

export type MediaType = 'image' | 'video' | 'gif' | 'audio' | 'other';

/** A picture, video or other file attached to a post, as the platform or export describes it. */
export interface MediaRef {
  type: MediaType;
  /** Where the bytes are upstream (an http(s) address), when known. */
  url: string | null;
  /** Where the bytes are inside the imported archive, when they are there. */
  archive_path: string | null;
  alt_text: string | null;
  width: number | null;
  height: number | null;
}

export interface FetchedPost {
  /** The platform's own id of the post: re-ingesting the same post updates it instead of adding one. */
  externalId: string;
  url: string | null;
  text: string;
  publishedAt: Date;
  metrics: Metrics;
  /** The post's attachments, in the order the author gave them (absent: none known). */
  media?: MediaRef[];
  /** Who could read it (absent: public). Publishing a draft of a non-public post needs confirming. */
  visibility?: 'public' | 'unlisted' | 'followers' | 'connections';
  /** The content warning the author put over the post (Mastodon `summary` / `spoiler_text`). */
  contentWarning?: string | null;
  /** The poll the post asked, with its options. */
  poll?: Poll | null;
  /** An edited post (an X edit chain read as one post): the address of its first version. */
  firstVersionUrl?: string | null;
  /**
   * The date as the source wrote it, when it could not be read: `publishedAt` is then the time of
   * the fetch (kept from the first ingest), and the post says so instead of passing it off as real.
   */
  unreadDate?: string | null;
}

/** A poll as published (the contract's `SourcePoll`). */
export interface Poll {
  multiple: boolean;
  options: Array<{ title: string; votes: number | null }>;
  closes_at: string | null;
  voters: number | null;
}

/**
 * What one ingest read: the posts that are sources, and the platform ids of the posts it saw that
 * must never be (a Mastodon direct message). Ingest retires a known post with a withdrawn id: an
 * install that stored one before the adapter knew better gets it out of its sources.
 */
export interface PostListing {
  posts: FetchedPost[];
  withdrawn: string[];
}

export interface Published {
  externalId: string;
  url: string | null;
  /** Bluesky's content id of the record (a reply must name it); null elsewhere. */
  cid: string | null;
}

/** One post to make: a text alone, or one part of a thread. */
export interface PublishPart {
  text: string;
  /**
   * Stable for one part of one artifact (`position` from 0), so that a retried publish is
   * recognised upstream where the platform allows it (Mastodon's Idempotency-Key, a fixed
   * Bluesky record key).
   */
  key: { id: string; createdAt: Date; position: number };
  /** The thread's first post and the post this one answers; null for a first (or only) post. */
  replyTo: { root: Published; parent: Published } | null;
  /** The images this post shows, as `uploadImages` answered (null or absent: none). */
  media?: UploadedImages | null;
  /**
   * An earlier attempt at this destination ended without knowing whether the platform made this
   * part (a dropped connection, a 5xx, a crash before the record): a platform that takes no
   * idempotency key reads the account's recent posts first and adopts the one with this text.
   */
  mayExist?: boolean;
  /**
   * No attempt at this part began before this instant (when the destination was chosen): a
   * read-back for `mayExist` (or X's duplicate-content refusal) pages back through the account's
   * posts no further than this. Absent: the start of this attempt.
   */
  attemptsSince?: Date;
  /**
   * The content warning to publish the post under (the artifact's, on the first part only):
   * Mastodon's `spoiler_text`; Bluesky, which has none, starts the text with `CW: <warning>`.
   */
  contentWarning?: string | null;
}

/** An image to attach to a post: its bytes (already fitted to the platform, see services/media-limits.ts) and alt text. */
export interface ImageToUpload {
  bytes: Buffer;
  /** image/jpeg, image/png, image/webp or image/gif */
  contentType: string;
  altText: string | null;
  width: number;
  height: number;
  /**
   * Where the platform can fetch these bytes itself: a sealed address that expires, under the
   * service's PUBLIC_BASE_URL (GET /api/media-public/{token}); null when the service has no public
   * address. Only a platform that fetches images by address (Threads) uses it.
   */
  publicUrl?: string | null;
}

/**
 * What a post must carry to show uploaded images: media ids (Mastodon's `media_ids` of POST
 * /api/v1/statuses, X's `media.media_ids`), Bluesky's `app.bsky.embed.images` embed (the record's
 * `embed`), or images by id with their alt text (LinkedIn's image URNs, Threads' public URLs).
 * Recorded as JSON before the post (services/publish-media.ts), so it must stay plain data.
 */
export type UploadedImages = { mediaIds: string[] } | { embed: BlueskyImagesEmbed } | { images: Array<{ id: string; altText: string | null }> };

export interface BlueskyImagesEmbed {
  $type: 'app.bsky.embed.images';
  images: Array<{
    image: { $type: 'blob'; ref: { $link: string }; mimeType: string; size: number };
    alt: string;
    aspectRatio: { width: number; height: number };
  }>;
}

export interface ProbeResult {
  /** What the platform calls the account (shown in logs; never a secret). */
  displayName: string;
}

export interface PlatformAdapter {
  readonly platform: Platform;
  /** Whether ingest needs a connected account (rss does not; a connected rss account only adds a proxy). */
  readonly needsCredentials: boolean;
  /** Most posts one ingest reads (newest first): a few API pages, or a whole archive. */
  readonly ingestLimit: number;
  /** Checks that the handle has this platform's form; returns the canonical handle, or throws `invalid_input`. */
  normalizeHandle(handle: string): string;
  probe(ctx: AdapterContext, handle: string, creds: Credentials): Promise<ProbeResult>;
  listPosts(ctx: AdapterContext, handle: string, creds: Credentials, opts: { max: number }): Promise<PostListing>;
  /**
   * Posts one part as the handle, as a reply when `part.replyTo` is set. Absent on platforms
   * that cannot publish (rss, archive).
   */
  publish?(ctx: AdapterContext, handle: string, creds: Credentials, part: PublishPart): Promise<Published>;
  /**
   * The most parts one publish may have on this platform (absent: a thread of any length). LinkedIn
   * has no threads: 1, and a variant split in parts is refused with the reason when publishing.
   */
  readonly maxParts?: number;
  /**
   * Why `text` cannot be one post on this platform (too long), or null when it can; `extras`
   * is what the post carries with it that the platform counts (its content warning).
   */
  refusesText?(text: string, extras?: PostExtras): string | null;
  /**
   * Checked when a publish (or a schedule) is requested, before anything is queued: why this
   * account cannot take this artifact now (Threads: images without a public address, its daily
   * publishing quota used up), with what to do; null when it can. Absent: nothing to check.
   */
  refusesPublish?(ctx: AdapterContext, handle: string, creds: Credentials, q: { parts: string[]; images: number }): Promise<string | null>;
  /**
   * Uploads images with their alt text, in order; returns what the post must carry to show them.
   * Absent on platforms that cannot publish. Not idempotent upstream: an upload a post never
   * used is removed by the platform (Mastodon vacuums unattached media, a PDS unreferenced blobs).
   */
  uploadImages?(ctx: AdapterContext, handle: string, creds: Credentials, images: ImageToUpload[]): Promise<UploadedImages>;
}

export type AdapterErrorKind =
  /** the platform refused the credential (401/403, wrong password, revoked token) */
  | 'credential_rejected'
  /** the handle or feed does not exist upstream (404/410) */
  | 'not_found'
  /** network failure, timeout, 408/429/5xx: may pass, worth retrying */
  | 'unavailable'
  /** the upstream refused the request for another reason (other 4xx, a non-public address) */
  | 'rejected'
  /** the upstream answered something we cannot read (not a feed, not the JSON we expect) */
  | 'invalid_response'
  /** what the caller gave cannot work (a handle of the wrong form, an unreadable archive) */
  | 'invalid_input';

export class AdapterError extends Error {
  constructor(
    readonly kind: AdapterErrorKind,
    message: string,
    /** The upstream HTTP status, when there was an answer. */
    readonly status: number | null = null,
    /** The request field at fault, for `invalid_input`. */
    readonly field: string | null = null,
    /** When the platform said it can be asked again (a 429's reset time), for `unavailable`. */
    readonly retryAt: Date | null = null,
  ) {
    super(message);
    this.name = 'AdapterError';
  }
}
