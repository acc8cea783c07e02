// Pixelfed: Settings → Data export → "Statuses" downloads `pixelfed-statuses.json`. Pixelfed
// writes it a thousand statuses at a time, each thousand serialized as `{"data": [ … ]}` and the
// thousands joined in one array (`[{"data": [status, …]}, {"data": [ … ]}]`); older versions
// wrote one `{"data": [ … ]}`, and a bare array of statuses is read too. A status is Pixelfed's
// API shape (its `StatusTransformer`, close to Mastodon's API): `id`, `url`/`uri`, `content`
// (HTML; `content_text` the caption as typed), `created_at`, `visibility` (`public`, `unlisted`,
// `private` — followers only —, `direct`, `draft`, `archived`), `spoiler_text` (the content
// warning), `in_reply_to_id` / `in_reply_to_account_id`, `reblog` (a share), `media_attachments`
// (`url`, `type`, `description` as alt text), `favourites_count`, `reblogs_count`,
// `reply_count`, and the author's `account`.
//
// Read as the Mastodon archive is: direct messages never; followers-only only on request; shares
// left out; a comment on someone else's post left out, the author's answer to their own kept as a
// thread. Drafts are left out as drafts; an archived post (hidden from everyone but its author) is
// private: never imported.
import type { Readable } from 'node:stream';
import { count, dated, dateOf, htmlToText, httpUrl, plainText } from '../text.js';
import { DEFAULT_LIMITS } from './container.js';
import { jsonArrayElements } from './json-stream.js';
import { tooManyToThread } from './misskey.js';
import type { ArchiveItem, MediaRef, MediaType, ReadOptions, Visibility } from './types.js';

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : {});
const list = (v: unknown): Node[] => (Array.isArray(v) ? (v as unknown[]).map(obj) : []);
const idOf = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

export type PixelfedAudience = Visibility | 'direct' | 'draft' | 'archived';

export function pixelfedVisibility(v: unknown): PixelfedAudience {
  if (v === 'public' || v === undefined || v === null || v === '') return 'public';
  if (v === 'unlisted') return 'unlisted';
  if (v === 'private') return 'followers';
  if (v === 'draft') return 'draft';
  if (v === 'archived') return 'archived';
  return 'direct';
}

function mediaType(att: Node): MediaType {
  const t = typeof att.type === 'string' ? att.type.toLowerCase() : '';
  const mime = typeof att.mime === 'string' ? att.mime : '';
  if (t === 'gifv' || mime === 'image/gif') return 'gif';
  if (t === 'image' || t === 'photo' || mime.startsWith('image/')) return 'image';
  if (t === 'video' || mime.startsWith('video/')) return 'video';
  if (t === 'audio' || mime.startsWith('audio/')) return 'audio';
  return 'other';
}

/** The account's own id (the first status names it) and its statuses read so far, id → external id. */
export interface PixelfedThread {
  account: string | null;
  seen: Map<string, string>;
}

export function pixelfedItem(entry: unknown, thread: PixelfedThread, opts: ReadOptions): ArchiveItem {
  const s = obj(entry);
  const id = idOf(s.id);
  const externalId = httpUrl(s.uri) ?? httpUrl(s.url) ?? (id ? `pixelfed:${id}` : '');
  const author = idOf(obj(s.account).id);
  if (author && thread.account === null) thread.account = author;
  if (id && externalId) thread.seen.set(id, externalId);
  if (s.reblog && typeof s.reblog === 'object') return { skip: 'repost' };
  if (!id) return { skip: 'unreadable' };
  const audience = pixelfedVisibility(s.visibility);
  if (audience === 'direct') return { skip: 'direct_message' };
  if (audience === 'draft') return { skip: 'draft' };
  if (audience === 'archived') return { skip: 'private' };
  if (audience === 'followers' && !opts.includeNonPublic) return { skip: 'followers_only' };
  const parent = idOf(s.in_reply_to_id);
  const parentAuthor = idOf(s.in_reply_to_account_id);
  const own = parent && (thread.seen.has(parent) || (parentAuthor !== '' && parentAuthor === (thread.account ?? author)));
  if (parent && !own) return { skip: 'reply' };
  const { publishedAt, unreadDate } = dated(s.created_at, dateOf(s.created_at), opts.now ?? new Date());
  const words = typeof s.content === 'string' && s.content ? htmlToText(s.content) : typeof s.content_text === 'string' ? plainText(s.content_text) : '';
  const media: MediaRef[] = list(s.media_attachments).map((m) => ({
    type: mediaType(m),
    url: httpUrl(m.url),
    archive_path: null,
    alt_text: typeof m.description === 'string' && m.description.trim() ? m.description : null,
    width: count(obj(obj(m.meta).original).width) || null,
    height: count(obj(obj(m.meta).original).height) || null,
  }));
  if (!words && !media.length) return { skip: 'empty' };
  const warning = typeof s.spoiler_text === 'string' ? plainText(s.spoiler_text) : '';
  return {
    post: {
      externalId,
      url: httpUrl(s.url) ?? httpUrl(s.uri),
      text: words,
      publishedAt,
      unreadDate,
      metrics: { likes: count(s.favourites_count), reposts: count(s.reblogs_count), replies: count(s.reply_count ?? s.replies_count), quotes: 0 },
      visibility: audience,
      media,
      replyTo: parent ? (thread.seen.get(parent) ?? `pixelfed:${parent}`) : null,
      contentWarning: warning || null,
    },
  };
}

/** A wrapper of Pixelfed's thousands (`{"data": […]}`, its statuses already yielded one by one) or the `data` array itself. */
const isWrapper = (v: unknown) => Array.isArray(v) || (v !== null && typeof v === 'object' && Array.isArray((v as Node).data));

export async function* readPixelfed(input: Readable, file: string, opts: ReadOptions): AsyncGenerator<ArchiveItem> {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const thread: PixelfedThread = { account: null, seen: new Map() };
  for await (const entry of jsonArrayElements(input, {
    path: null,
    assignment: false,
    what: file || 'pixelfed-statuses.json',
    maxValueBytes: limits.maxValueBytes,
    alsoPaths: ['$.*.data.*', '$.data.*'],
  })) {
    if (isWrapper(entry)) continue;
    yield pixelfedItem(entry, thread, opts);
    tooManyToThread(thread.seen.size, limits.maxInferredPosts, file || 'pixelfed-statuses.json');
  }
}
