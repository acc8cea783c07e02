// X (Twitter) archive: `data/tweets.js` (or `tweets-part1.js` …, or the older `tweet.js`), each
// `window.YTD.tweets.partN = [ {"tweet": {…}}, … ]`; `data/note-tweet.js` holds the whole text of
// long posts (tweets.js has them cut at 280); `data/account.js` names the account;
// `data/protected-history.js` says when the account was protected (its posts then were for
// followers only); `data/tweets_media/<tweet id>-<file>` holds the media. A tweet edited on X is
// in tweets.js once per version: the first with `edit_info.initial.editTweetIds` (every version's
// id, the first's included, in order), each later one with `edit_info.edit.initialTweetId`;
// `readX` makes one post of each chain (see `mergeChain`).
import { decodeHTML } from 'entities';
import type { Readable } from 'node:stream';
import { count, dateOf, httpUrl } from '../text.js';
import { readText } from './container.js';
import { ArchiveError } from './errors.js';
import { jsonArrayElements } from './json-stream.js';
import type { ArchiveItem, MediaRef, MediaType, ReadOptions, Visibility } from './types.js';

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (v && typeof v === 'object' ? (v as Node) : {});
const list = (v: unknown): Node[] => (Array.isArray(v) ? (v as Node[]) : []);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

/** The side files an X archive may carry, read before the posts. */
export interface XContext {
  ownUserId: string | null;
  username: string | null;
  /** Long posts by the second they were created at (`2023-05-01T12:00:00`). */
  notes: Map<string, Array<{ text: string }>>;
  /** [from, to) intervals during which the account was protected. */
  protectedSpans: Array<[number, number]>;
  /** Entry names of the archive, to tell whether a media file is inside it. */
  entries: Set<string>;
  /** The folder holding `data/` ('' or `twitter-2024…/`). */
  root: string;
}

const SIDE_MAX = 256 * 1024 * 1024;

async function ytd(stream: Readable, what: string): Promise<Node[]> {
  const text = await readText(stream, SIDE_MAX);
  const eq = text.indexOf('=');
  try {
    return list(
      JSON.parse(
        text
          .slice(eq + 1)
          .trim()
          .replace(/;\s*$/, ''),
      ),
    );
  } catch {
    throw new ArchiveError('unreadable', `${what} is not readable (expected \`window.YTD.… = [ … ]\`).`);
  }
}

/** Expands t.co links to the addresses they stand for. */
function expand(text: string, urls: Array<{ short: string | null; long: string | null }>): string {
  let t = text;
  for (const u of urls) if (u.short && u.long) t = t.split(u.short).join(u.long);
  return t;
}

export async function readXContext(open: (name: string) => Readable, side: Record<string, string>, entries: Set<string>, root: string): Promise<XContext> {
  const ctx: XContext = { ownUserId: null, username: null, notes: new Map(), protectedSpans: [], entries, root };
  if (side.account) {
    const a = obj((await ytd(open(side.account), 'account.js'))[0]?.account);
    ctx.ownUserId = str(a.accountId);
    ctx.username = str(a.username);
  }
  if (side.notes) {
    for (const n of await ytd(open(side.notes), 'note-tweet.js')) {
      const note = obj(n.noteTweet);
      const core = obj(note.core);
      const created = dateOf(note.createdAt);
      const text = str(core.text);
      if (!created || !text) continue;
      const full = expand(
        decodeHTML(text),
        list(core.urls).map((u) => ({ short: str(u.shortUrl), long: str(u.expandedUrl) })),
      );
      const key = created.toISOString().slice(0, 19);
      ctx.notes.set(key, [...(ctx.notes.get(key) ?? []), { text: full }]);
    }
  }
  if (side.protected) {
    const events = (await ytd(open(side.protected), 'protected-history.js'))
      .map((e) => obj(e.protectedHistory))
      .map((h) => ({ at: dateOf(h.protectedAt)?.getTime() ?? NaN, protect: String(h.action).toLowerCase() === 'protect' }))
      .filter((e) => Number.isFinite(e.at))
      .sort((a, b) => a.at - b.at);
    let from: number | null = null;
    for (const e of events) {
      if (e.protect && from === null) from = e.at;
      else if (!e.protect && from !== null) {
        ctx.protectedSpans.push([from, e.at]);
        from = null;
      }
    }
    if (from !== null) ctx.protectedSpans.push([from, Infinity]);
  }
  return ctx;
}

const MEDIA_TYPES: Record<string, MediaType> = { photo: 'image', video: 'video', animated_gif: 'gif' };
const basename = (u: string) => {
  try {
    return new URL(u).pathname.split('/').pop() ?? '';
  } catch {
    return '';
  }
};

function mediaOf(t: Node, id: string, ctx: XContext): MediaRef[] {
  const media = list(obj(t.extended_entities).media).length ? list(obj(t.extended_entities).media) : list(obj(t.entities).media);
  return media.map((m) => {
    const type = MEDIA_TYPES[String(m.type)] ?? 'other';
    const variants = list(obj(m.video_info).variants).filter((v) => v.content_type === 'video/mp4');
    const best = variants.sort((a, b) => count(b.bitrate) - count(a.bitrate))[0];
    const upstream = httpUrl(type === 'image' ? (m.media_url_https ?? m.media_url) : (best?.url ?? m.media_url_https));
    const file = upstream ? `${ctx.root}data/tweets_media/${id}-${basename(upstream)}` : null;
    const large = obj(obj(m.sizes).large);
    return {
      type,
      url: upstream,
      archive_path: file && ctx.entries.has(file) ? file : null,
      alt_text: str(m.ext_alt_text) ?? str(m.alt_text),
      width: count(large.w) || null,
      height: count(large.h) || null,
    };
  });
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The whole text of a long post, when note-tweet.js has it. */
function noteText(ctx: XContext, created: Date, shown: string): string | null {
  const candidates = ctx.notes.get(created.toISOString().slice(0, 19));
  if (!candidates) return null;
  const start = squash(shown.replace(/…$/u, '')).slice(0, 60);
  return candidates.find((n) => squash(n.text).startsWith(start))?.text ?? null;
}

function visibilityAt(ctx: XContext, at: Date): Visibility {
  const t = at.getTime();
  return ctx.protectedSpans.some(([a, b]) => t >= a && t < b) ? 'followers' : 'public';
}

/** One tweet, classified. */
export function xItem(entry: unknown, ctx: XContext, opts: ReadOptions): ArchiveItem {
  const e = obj(entry);
  const t = e.tweet ? obj(e.tweet) : e;
  const id = str(t.id_str) ?? str(t.id);
  const raw = str(t.full_text) ?? str(t.text);
  const publishedAt = dateOf(t.created_at);
  if (!id || raw === null || !publishedAt) return { skip: 'unreadable' };
  if (raw.startsWith('RT @')) return { skip: 'repost' };
  // Replies to other people are not source material; the author's own threads are.
  const replyTo = str(t.in_reply_to_status_id_str) ?? str(t.in_reply_to_status_id);
  const replyToUser = str(t.in_reply_to_user_id_str) ?? str(t.in_reply_to_user_id);
  const own = ctx.ownUserId ?? opts.ownUserId ?? null;
  const pending = replyTo !== null && own === null && opts.ownUserId === undefined && replyToUser !== null;
  if (replyTo && !pending && (replyToUser === null || replyToUser !== own)) return { skip: 'reply' };
  const visibility = visibilityAt(ctx, publishedAt);
  if (visibility !== 'public' && !opts.includeNonPublic) return { skip: 'followers_only' };
  const entities = obj(t.entities);
  const media = mediaOf(t, id, ctx);
  const mediaLinks = new Set([...list(entities.media), ...list(obj(t.extended_entities).media)].map((m) => str(m.url)).filter((u): u is string => !!u));
  let text = decodeHTML(raw);
  for (const link of mediaLinks) text = text.split(link).join('');
  text = expand(
    text,
    list(entities.urls).map((u) => ({ short: str(u.url), long: str(u.expanded_url) })),
  );
  text = (noteText(ctx, publishedAt, text) ?? text).replace(/\r\n?/g, '\n').trim();
  if (!text && !media.length) return { skip: 'empty' };
  const post = {
    externalId: id,
    url: ctx.username
      ? `https://x.com/${encodeURIComponent(ctx.username)}/status/${encodeURIComponent(id)}`
      : `https://x.com/i/web/status/${encodeURIComponent(id)}`,
    text,
    publishedAt,
    metrics: { likes: count(t.favorite_count), reposts: count(t.retweet_count), replies: count(t.reply_count), quotes: count(t.quote_count) },
    visibility,
    media,
    replyTo,
  };
  return pending ? { post, replyToUser: replyToUser! } : { post };
}

/** Where a tweet stands in an edit chain: the first version's id and, when known, every version's id in order. Null: not edited. */
export function editChainOf(entry: unknown): { initial: string; ids: string[] | null } | null {
  const e = obj(entry);
  const t = e.tweet ? obj(e.tweet) : e;
  const info = obj(t.edit_info);
  const ids = (v: unknown) => (Array.isArray(v) ? v.map(str).filter((x): x is string => x !== null) : null);
  const initial = obj(info.initial);
  const own = str(t.id_str) ?? str(t.id);
  const chainIds = ids(initial.editTweetIds);
  if (own && chainIds) return chainIds.length > 1 ? { initial: own, ids: chainIds } : null;
  const edit = obj(info.edit);
  const first = str(edit.initialTweetId);
  if (!first || first === own) return null;
  return { initial: first, ids: ids(obj(edit.editControlInitial).editTweetIds) };
}

interface Version {
  id: string;
  item: ArchiveItem;
}

const byId = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/**
 * One post for an edit chain: the last version's text, media, metrics and audience; the first
 * version's date, id (the post's external id, stable whatever the chain grows to) and thread
 * parent; `firstVersionUrl` the first version's address. A chain whose last version is left out
 * (a reply to someone, …) is left out once, for that reason.
 */
export function mergeChain(initial: string, order: string[] | null, versions: Version[], ctx: XContext): ArchiveItem {
  const rank = (id: string) => (order?.includes(id) ? order.indexOf(id) : Number.MAX_SAFE_INTEGER);
  const sorted = [...versions].sort((a, b) => rank(a.id) - rank(b.id) || byId(a.id, b.id));
  const last = sorted[sorted.length - 1]!.item;
  if (!last.post) return last;
  const first = sorted.find((v) => v.id === initial)?.item.post ?? sorted.find((v) => v.item.post)!.item.post!;
  const earliest = Math.min(...sorted.flatMap((v) => (v.item.post ? [v.item.post.publishedAt.getTime()] : [])));
  const post = {
    ...last.post,
    externalId: initial,
    publishedAt: new Date(Math.min(first.publishedAt.getTime(), earliest)),
    replyTo: first.replyTo ?? last.post.replyTo,
    firstVersionUrl: ctx.username
      ? `https://x.com/${encodeURIComponent(ctx.username)}/status/${encodeURIComponent(initial)}`
      : `https://x.com/i/web/status/${encodeURIComponent(initial)}`,
  };
  return { ...last, post } as ArchiveItem;
}

/**
 * The posts of the tweet files in order; edited tweets as one post per chain. The versions of a
 * chain wait (in memory: only edited tweets, each until its chain is complete) until every version
 * the first one lists was read, wherever each is in the files; chains still open at the end (a
 * version missing from the export) are merged from what was found.
 */
export async function* readX(open: (name: string) => Readable, files: string[], ctx: XContext, opts: ReadOptions): AsyncGenerator<ArchiveItem> {
  const chains = new Map<string, { ids: string[] | null; versions: Version[] }>();
  for (const name of files) {
    for await (const entry of jsonArrayElements(open(name), { path: null, assignment: true, what: name || 'tweets.js' })) {
      const chain = editChainOf(entry);
      if (!chain) {
        yield xItem(entry, ctx, opts);
        continue;
      }
      const t = obj(obj(entry).tweet ?? entry);
      const id = str(t.id_str) ?? str(t.id) ?? '';
      const open_ = chains.get(chain.initial) ?? { ids: null, versions: [] };
      chains.set(chain.initial, open_);
      if (chain.ids && (!open_.ids || id === chain.initial)) open_.ids = chain.ids;
      if (!open_.versions.some((v) => v.id === id)) open_.versions.push({ id, item: xItem(entry, ctx, opts) });
      const ids = open_.ids;
      if (ids && ids.every((x) => open_.versions.some((v) => v.id === x))) {
        chains.delete(chain.initial);
        yield mergeChain(chain.initial, ids, open_.versions, ctx);
      }
    }
  }
  for (const [initial, c] of chains) yield mergeChain(initial, c.ids, c.versions, ctx);
}
