// Misskey and its forks (Sharkey, Firefish, Iceshrimp): Settings → Import and export → "Export
// notes" writes one JSON array, oldest first, of the account's notes: `id`, `text` (MFM, plain
// text as typed), `cw` (the content warning, plain text), `visibility` (`public`, `home` —
// public but off the timelines —, `followers`, `specified` — a direct message), `createdAt`,
// `fileIds` with the drive `files` (`url`, `type`, `comment` as alt text, `properties` with the
// size), `replyId`, `renoteId`, `poll` (`choices` with `text` and `votes`, `multiple`,
// `expiresAt`). The export holds no address of the instance: a note is known by its id.
//
// Read as the Mastodon archive is: direct messages never; followers-only notes only on request;
// a pure renote (a `renoteId` without text, files or poll) is a boost, left out; a quote (a
// renote with words) is the author's post; a reply is kept only in the author's own thread (its
// `replyId` is a note of the export read before it), other replies are left out.
import type { Readable } from 'node:stream';
import { count, dated, dateOf, httpUrl, plainText, withPoll } from '../text.js';
import type { Poll } from '../types.js';
import { DEFAULT_LIMITS } from './container.js';
import { ArchiveError } from './errors.js';
import { jsonArrayElements } from './json-stream.js';
import type { ArchiveItem, MediaRef, MediaType, ReadOptions, Visibility } from './types.js';

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const list = (v: unknown): Node[] => (Array.isArray(v) ? (v as unknown[]).map(obj) : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Misskey's audiences; `specified` (a message to named users) is a direct message. */
export function misskeyVisibility(v: unknown): Visibility | 'direct' {
  if (v === 'public' || v === undefined || v === null) return 'public';
  if (v === 'home') return 'unlisted';
  if (v === 'followers') return 'followers';
  return 'direct';
}

function mediaType(mime: string): MediaType {
  if (mime === 'image/gif') return 'gif';
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('audio/')) return 'audio';
  return 'other';
}

function pollOf(v: unknown): Poll | null {
  const p = obj(v);
  const options = list(p.choices)
    .map((c) => ({ title: text(c.text).trim(), votes: c.votes === undefined ? null : count(c.votes) }))
    .filter((o) => o.title);
  if (!options.length) return null;
  const closes = dateOf(p.expiresAt);
  return { multiple: p.multiple === true, options, closes_at: closes ? closes.toISOString() : null, voters: null };
}

/** Misskey's reactions are its likes: their counts added up. */
const reactions = (v: unknown) => Object.values(obj(v)).reduce<number>((n, x) => n + count(x), 0);

/** The ids of the notes read so far (the export is oldest first: a thread's parent comes before its replies). */
export type SeenNotes = Set<string>;

export function misskeyItem(entry: unknown, seen: SeenNotes, opts: ReadOptions): ArchiveItem {
  const n = obj(entry);
  const id = typeof n.id === 'string' ? n.id : '';
  if (id) seen.add(id);
  const files = list(n.files);
  const poll = pollOf(n.poll);
  const words = text(n.text);
  const fileIds = Array.isArray(n.fileIds) ? n.fileIds : [];
  if (n.renoteId && !words.trim() && !files.length && !fileIds.length && !poll) return { skip: 'repost' };
  if (!id) return { skip: 'unreadable' };
  const visibility = misskeyVisibility(n.visibility);
  if (visibility === 'direct') return { skip: 'direct_message' };
  if (visibility === 'followers' && !opts.includeNonPublic) return { skip: 'followers_only' };
  const replyId = typeof n.replyId === 'string' && n.replyId ? n.replyId : null;
  if (replyId && !seen.has(replyId)) return { skip: 'reply' };
  const { publishedAt, unreadDate } = dated(n.createdAt, dateOf(n.createdAt), opts.now ?? new Date());
  const media: MediaRef[] = files.map((f) => ({
    type: mediaType(text(f.type)),
    url: httpUrl(f.url),
    archive_path: null,
    alt_text: text(f.comment).trim() || null,
    width: count(obj(f.properties).width) || null,
    height: count(obj(f.properties).height) || null,
  }));
  const body = withPoll(plainText(words), poll);
  if (!body && !media.length) return { skip: 'empty' };
  const warning = typeof n.cw === 'string' ? plainText(n.cw) : '';
  return {
    post: {
      externalId: `misskey:${id}`,
      url: httpUrl(n.url) ?? httpUrl(n.uri),
      text: body,
      publishedAt,
      unreadDate,
      metrics: { likes: reactions(n.reactions), reposts: count(n.renoteCount), replies: count(n.repliesCount), quotes: 0 },
      visibility,
      media,
      replyTo: replyId ? `misskey:${replyId}` : null,
      contentWarning: warning || null,
      poll,
    },
  };
}

/** The ids kept to tell the author's threads from replies to others are bounded like X's (`maxInferredPosts`). */
export function tooManyToThread(kept: number, max: number, what: string): void {
  if (kept > max) throw new ArchiveError('too_large', `${what} holds more than ${max} posts; at most ${max} are accepted.`);
}

export async function* readMisskey(input: Readable, file: string, opts: ReadOptions): AsyncGenerator<ArchiveItem> {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const seen: SeenNotes = new Set();
  for await (const entry of jsonArrayElements(input, {
    path: null,
    assignment: false,
    what: file || 'The notes export',
    maxValueBytes: limits.maxValueBytes,
  })) {
    yield misskeyItem(entry, seen, opts);
    tooManyToThread(seen.size, limits.maxInferredPosts, file || 'The notes export');
  }
}
