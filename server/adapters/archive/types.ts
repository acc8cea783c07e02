// What an export's reader yields: the author's own posts, as written, with their audience and
// media; and, for everything it leaves out, the reason (counted in the import's summary).
import type { FetchedPost, MediaRef } from '../types.js';
import type { ArchiveLimits } from './container.js';

export type { MediaRef, MediaType } from '../types.js';

export type ArchiveFormat = 'x' | 'linkedin' | 'mastodon' | 'bluesky' | 'wordpress' | 'instagram' | 'threads' | 'medium' | 'substack' | 'misskey' | 'pixelfed';
/** Each format read, with the name of the platform (or tool) whose export it is; in the order tried. */
export const FORMAT_NAMES: Record<ArchiveFormat, string> = {
  x: 'X',
  mastodon: 'Mastodon',
  linkedin: 'LinkedIn',
  bluesky: 'Bluesky',
  wordpress: 'WordPress',
  instagram: 'Instagram',
  threads: 'Threads',
  medium: 'Medium',
  substack: 'Substack',
  misskey: 'Misskey, Sharkey or Firefish',
  pixelfed: 'Pixelfed',
};
export const ARCHIVE_FORMATS = Object.keys(FORMAT_NAMES) as ArchiveFormat[];

/**
 * Who could see the post where it was written: `public` and `unlisted` (Mastodon: public but off
 * the public timelines) are publishable; `followers` (Mastodon followers-only, X protected
 * account) and `connections` (LinkedIn connections only) are not, unless confirmed.
 */
export type Visibility = 'public' | 'unlisted' | 'followers' | 'connections';
export const PUBLISHABLE: ReadonlySet<Visibility> = new Set(['public', 'unlisted']);

export interface ArchivePost extends FetchedPost {
  visibility: Visibility;
  media: MediaRef[];
  /** The external id of the author's own post this one answers (a self-thread), else null. */
  replyTo: string | null;
}

/**
 * Why an entry of the export is left out. `like`: a Bluesky like; `draft`: a WordPress draft,
 * pending, scheduled or auto-draft, a Medium draft, an unpublished Substack post, a Pixelfed draft;
 * `private`: a WordPress private or password-protected post, an archived Pixelfed post (never
 * imported); `trashed`: in the WordPress trash; `followers_only` also counts Substack's posts for
 * paying subscribers and Misskey's / Pixelfed's followers-only notes; `repost` Misskey's pure
 * renotes and Pixelfed's shares; `not_a_post`: a record or item that is not
 * a post (WordPress pages, attachments, menu items; Bluesky follows, blocks, profile, lists …).
 */
export type SkipReason =
  | 'direct_message'
  | 'followers_only'
  | 'repost'
  | 'reply'
  | 'empty'
  | 'unreadable'
  | 'like'
  | 'draft'
  | 'private'
  | 'trashed'
  | 'not_a_post';
export const SKIP_REASONS: SkipReason[] = [
  'direct_message',
  'followers_only',
  'repost',
  'reply',
  'empty',
  'unreadable',
  'like',
  'draft',
  'private',
  'trashed',
  'not_a_post',
];

export type ArchiveItem =
  | { post: ArchivePost; skip?: undefined; replyToUser?: undefined }
  | { skip: SkipReason; post?: undefined }
  /** X without account.js: a reply whose author is decided once the whole file was read (scan only). */
  | { post: ArchivePost; replyToUser: string; skip?: undefined };

export interface ReadOptions {
  /** Import followers-only / connections-only posts (their visibility is kept on the post). */
  includeNonPublic: boolean;
  /** X: the account's own user id (account.js, or inferred by the scan). `undefined`: infer. */
  ownUserId?: string | null;
  /** The bounds the readers enforce (DEFAULT_LIMITS when absent). */
  limits?: ArchiveLimits;
  /**
   * The time a post whose date cannot be read (or is outside the years 0001–9999) is given, its
   * date as written kept in `unreadDate` (`dated`): the import's or the ingest's time.
   */
  now?: Date;
}

/** The files of the archive the reader uses, by role; `path` is the entry name ('' for a bare file). */
export interface FormatFiles {
  format: ArchiveFormat;
  /** The post files, read in this order. */
  posts: string[];
  /** Side files (account.js, note-tweet.js, protected-history.js, actor.json). */
  side: Record<string, string>;
}
