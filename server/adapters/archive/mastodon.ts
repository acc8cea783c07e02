// Mastodon archive: `outbox.json`, an ActivityPub OrderedCollection whose `orderedItems` are the
// account's activities: `Create` of a `Note` (a post; its audience is in `to`/`cc`) or `Announce`
// (a boost of someone else's post). Attachments name files inside the archive
// (`/media_attachments/files/…`) with their alt text in `name`. A content warning is the
// object's `summary` (kept on the post, published again as Mastodon's `spoiler_text`); a poll is
// a `Question` whose options are `oneOf` (one choice) or `anyOf` (several), each a `Note` with
// its `name` and its votes in `replies.totalItems`.
import type { Readable } from 'node:stream';
import { count, dated, dateOf, htmlToText, httpUrl, plainText, withPoll } from '../text.js';
import { DEFAULT_LIMITS } from './container.js';
import { jsonArrayElements } from './json-stream.js';
import type { Poll } from '../types.js';
import type { ArchiveItem, MediaRef, MediaType, ReadOptions, Visibility } from './types.js';

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []);
const PUBLIC = new Set(['https://www.w3.org/ns/activitystreams#Public', 'as:Public', 'Public']);
const POST_TYPES = new Set(['Note', 'Question', 'Article', 'Page']);

/** public (to: Public), unlisted (cc: Public), followers (to: the followers collection), else a direct message. */
export function mastodonVisibility(o: Node, a: Node): Visibility | 'direct' {
  const to = [...strings(o.to), ...strings(a.to)];
  const cc = [...strings(o.cc), ...strings(a.cc)];
  if (to.some((x) => PUBLIC.has(x))) return 'public';
  if (cc.some((x) => PUBLIC.has(x))) return 'unlisted';
  const actor = typeof a.actor === 'string' ? a.actor : typeof o.attributedTo === 'string' ? o.attributedTo : '';
  if ([...to, ...cc].some((x) => x === `${actor}/followers` || x.endsWith('/followers'))) return 'followers';
  return 'direct';
}

const totalOf = (c: unknown) => count(obj(c).totalItems);

function mediaType(att: Node): MediaType {
  const mt = typeof att.mediaType === 'string' ? att.mediaType : '';
  if (mt === 'image/gif' || att.type === 'Gifv') return 'gif';
  if (mt.startsWith('image/') || att.type === 'Image') return 'image';
  if (mt.startsWith('video/') || att.type === 'Video') return 'video';
  if (mt.startsWith('audio/') || att.type === 'Audio') return 'audio';
  return 'other';
}

function mediaOf(o: Node, entries: Set<string>, root: string): MediaRef[] {
  const atts = Array.isArray(o.attachment) ? (o.attachment as unknown[]).map(obj) : [];
  return atts.map((att) => {
    const u = typeof att.url === 'string' ? att.url : typeof obj(att.url).href === 'string' ? String(obj(att.url).href) : '';
    const inside = u.startsWith('/') ? `${root}${u.slice(1)}` : null;
    return {
      type: mediaType(att),
      url: httpUrl(u),
      archive_path: inside && entries.has(inside) ? inside : null,
      alt_text: typeof att.name === 'string' && att.name.trim() ? att.name : null,
      width: count(att.width) || null,
      height: count(att.height) || null,
    };
  });
}

/** A `Question`'s poll: its options with their votes, whether several could be chosen, when it closes. Null for any other object. */
export function pollOf(o: Node): Poll | null {
  if (o.type !== 'Question') return null;
  const multiple = Array.isArray(o.anyOf);
  const raw = (multiple ? o.anyOf : o.oneOf) as unknown;
  const options = (Array.isArray(raw) ? raw.map(obj) : [])
    .map((opt) => ({
      title: typeof opt.name === 'string' ? opt.name.trim() : '',
      votes: obj(opt.replies).totalItems === undefined ? null : count(obj(opt.replies).totalItems),
    }))
    .filter((opt) => opt.title);
  if (!options.length) return null;
  const closes = dateOf(o.endTime ?? o.closed);
  return { multiple, options, closes_at: closes ? closes.toISOString() : null, voters: o.votersCount === undefined ? null : count(o.votersCount) };
}

export function mastodonItem(activity: unknown, opts: ReadOptions, entries: Set<string>, root: string): ArchiveItem {
  const a = obj(activity);
  if (a.type === 'Announce') return { skip: 'repost' };
  const o = obj(a.object);
  if (a.type !== 'Create' || !POST_TYPES.has(String(o.type))) return { skip: 'unreadable' };
  const visibility = mastodonVisibility(o, a);
  // Direct messages are never imported, whatever the options say.
  if (visibility === 'direct') return { skip: 'direct_message' };
  if (visibility === 'followers' && !opts.includeNonPublic) return { skip: 'followers_only' };
  const actor = typeof a.actor === 'string' ? a.actor : '';
  const inReplyTo = typeof o.inReplyTo === 'string' ? o.inReplyTo : null;
  if (inReplyTo && !(actor && inReplyTo.startsWith(`${actor}/`))) return { skip: 'reply' };
  const id = typeof o.id === 'string' ? o.id : typeof a.id === 'string' ? a.id : '';
  if (!id) return { skip: 'unreadable' };
  const written = o.published ?? a.published;
  const { publishedAt, unreadDate } = dated(written, dateOf(written), opts.now ?? new Date());
  const media = mediaOf(o, entries, root);
  const poll = pollOf(o);
  const text = withPoll(htmlToText(typeof o.content === 'string' ? o.content : ''), poll);
  if (!text && !media.length) return { skip: 'empty' };
  // `content` is HTML; Mastodon writes `summary` (the content warning) as the plain text the author typed.
  const warning = typeof o.summary === 'string' ? plainText(o.summary) : '';
  return {
    post: {
      externalId: id,
      url: httpUrl(o.url) ?? httpUrl(id),
      text,
      publishedAt,
      metrics: { likes: totalOf(o.likes), reposts: totalOf(o.shares), replies: totalOf(o.replies), quotes: 0 },
      visibility,
      media,
      replyTo: inReplyTo,
      contentWarning: warning || null,
      poll,
      unreadDate,
    },
  };
}

export async function* readMastodon(
  open: (name: string) => Readable,
  file: string,
  opts: ReadOptions,
  entries: Set<string>,
  root: string,
): AsyncGenerator<ArchiveItem> {
  const maxValueBytes = (opts.limits ?? DEFAULT_LIMITS).maxValueBytes;
  for await (const a of jsonArrayElements(open(file), { path: 'orderedItems', assignment: false, what: file || 'outbox.json', maxValueBytes }))
    yield mastodonItem(a, opts, entries, root);
}
