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
import { count, dated, dateOf, httpUrl } from '../text.js';
import { DEFAULT_LIMITS, type ArchiveLimits } from './container.js';
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
  /** Long posts by the second they were created at (`2023-05-01T12:00:00`), in file order. */
  notes: Map<string, Note[]>;
  /** Long posts by their second and the first `NOTE_KEY` characters of their squashed text: the first of each. */
  notesByStart: Map<string, string>;
  /** [from, to) intervals during which the account was protected. */
  protectedSpans: Array<[number, number]>;
  /** Entry names of the archive, to tell whether a media file is inside it. */
  entries: Set<string>;
  /** The folder holding `data/` ('' or `twitter-2024…/`). */
  root: string;
}

interface Note {
  /** The first `NOTE_KEY` characters of the text, whitespace squashed. */
  start: string;
  text: string;
}

/** A side file's elements, streamed (never the whole file as one string): bounded by the side-file size and the single-value size. */
async function* ytdEach(stream: Readable, what: string, limits: ArchiveLimits): AsyncGenerator<Node> {
  for await (const e of jsonArrayElements(stream, {
    path: null,
    assignment: true,
    what,
    maxValueBytes: limits.maxValueBytes,
    maxBytes: limits.maxSideFileBytes,
  }))
    yield obj(e);
}

async function ytd(stream: Readable, what: string, limits: ArchiveLimits): Promise<Node[]> {
  const out: Node[] = [];
  for await (const e of ytdEach(stream, what, limits)) out.push(e);
  return out;
}

/** A t.co link as X writes them in a post's text. */
const TCO = /https?:\/\/t\.co\/[A-Za-z0-9]+/g;

/**
 * Replaces each short link of the text (t.co) by what it stands for ('' takes it out): one pass
 * over the text with a map of the links, so that a post listing thousands of links costs the
 * length of its text, not that times the number of links.
 */
function replaceLinks(text: string, pairs: Array<[string | null, string | null]>): string {
  const links = new Map<string, string>();
  const other: Array<[string, string]> = [];
  for (const [short, long] of pairs) {
    if (!short || long === null || links.has(short)) continue;
    if (/^https?:\/\/t\.co\/[A-Za-z0-9]+$/.test(short)) links.set(short, long);
    else if (other.length < 8) other.push([short, long]);
  }
  let t = links.size ? text.replace(TCO, (m) => links.get(m) ?? m) : text;
  for (const [short, long] of other) t = t.split(short).join(long);
  return t;
}

/** Expands t.co links to the addresses they stand for. */
function expand(text: string, urls: Array<{ short: string | null; long: string | null }>): string {
  return replaceLinks(
    text,
    urls.map((u) => [u.short, u.long]),
  );
}

/** Characters of a long post's start that key it: a post in tweets.js shows at least these of its note. */
const NOTE_KEY = 60;

export async function readXContext(
  open: (name: string) => Readable,
  side: Record<string, string>,
  entries: Set<string>,
  root: string,
  limits: ArchiveLimits = DEFAULT_LIMITS,
): Promise<XContext> {
  const ctx: XContext = { ownUserId: null, username: null, notes: new Map(), notesByStart: new Map(), protectedSpans: [], entries, root };
  if (side.account) {
    const a = obj((await ytd(open(side.account), 'account.js', limits))[0]?.account);
    ctx.ownUserId = str(a.accountId);
    ctx.username = str(a.username);
  }
  if (side.notes) {
    for await (const n of ytdEach(open(side.notes), 'note-tweet.js', limits)) {
      const note = obj(n.noteTweet);
      const core = obj(note.core);
      const created = dateOf(note.createdAt);
      const text = str(core.text);
      if (!created || !text) continue;
      const full = expand(
        decodeHTML(text),
        list(core.urls).map((u) => ({ short: str(u.shortUrl), long: str(u.expandedUrl) })),
      );
      const second = created.toISOString().slice(0, 19);
      const entry: Note = { start: squash(full).slice(0, NOTE_KEY), text: full };
      const same = ctx.notes.get(second);
      if (same) same.push(entry);
      else ctx.notes.set(second, [entry]);
      const key = `${second}|${entry.start}`;
      if (!ctx.notesByStart.has(key)) ctx.notesByStart.set(key, full);
    }
  }
  if (side.protected) {
    const events = (await ytd(open(side.protected), 'protected-history.js', limits))
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

/** Notes of one second looked through for a post whose shown text is shorter than `NOTE_KEY`. */
const SHORT_SCAN = 64;

/**
 * The whole text of a long post, when note-tweet.js has it: the note of the same second whose
 * text starts as the post's does. One map lookup when the post shows `NOTE_KEY` characters (a
 * cut long post shows ~280), so that 20,000 notes of one second cost 20,000 lookups, not 400
 * million comparisons; a shorter post looks through at most `SHORT_SCAN` notes of its second.
 */
function noteText(ctx: XContext, created: Date, shown: string): string | null {
  const second = created.toISOString().slice(0, 19);
  const start = squash(shown.replace(/…$/u, '')).slice(0, NOTE_KEY);
  if (start.length === NOTE_KEY) return ctx.notesByStart.get(`${second}|${start}`) ?? null;
  const candidates = ctx.notes.get(second);
  if (!candidates) return null;
  for (let i = 0; i < candidates.length && i < SHORT_SCAN; i += 1) if (candidates[i]!.start.startsWith(start)) return candidates[i]!.text;
  return null;
}

/** Whether the account was protected at `at`: a binary search of the sorted, disjoint spans. */
function visibilityAt(ctx: XContext, at: Date): Visibility {
  const t = at.getTime();
  const spans = ctx.protectedSpans;
  let lo = 0;
  let hi = spans.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = spans[mid]!;
    if (t < a) hi = mid - 1;
    else if (t >= b) lo = mid + 1;
    else return 'followers';
  }
  return 'public';
}

/** One tweet, classified. */
export function xItem(entry: unknown, ctx: XContext, opts: ReadOptions): ArchiveItem {
  const e = obj(entry);
  const t = e.tweet ? obj(e.tweet) : e;
  const id = str(t.id_str) ?? str(t.id);
  const raw = str(t.full_text) ?? str(t.text);
  if (!id || raw === null) return { skip: 'unreadable' };
  const { publishedAt, unreadDate } = dated(t.created_at, dateOf(t.created_at), opts.now ?? new Date());
  if (raw.startsWith('RT @')) return { skip: 'repost' };
  // Replies to other people are not source material; the author's own threads are.
  const replyTo = str(t.in_reply_to_status_id_str) ?? str(t.in_reply_to_status_id);
  const replyToUser = str(t.in_reply_to_user_id_str) ?? str(t.in_reply_to_user_id);
  const own = ctx.ownUserId ?? opts.ownUserId ?? null;
  const pending = replyTo !== null && own === null && opts.ownUserId === undefined && replyToUser !== null;
  if (replyTo && !pending && (replyToUser === null || replyToUser !== own)) return { skip: 'reply' };
  // Without its date, a post of an account that was protected for a while may have been for followers only.
  const visibility = unreadDate === null ? visibilityAt(ctx, publishedAt) : ctx.protectedSpans.length ? 'followers' : 'public';
  if (visibility !== 'public' && !opts.includeNonPublic) return { skip: 'followers_only' };
  const entities = obj(t.entities);
  const media = mediaOf(t, id, ctx);
  const mediaLinks = new Set([...list(entities.media), ...list(obj(t.extended_entities).media)].map((m) => str(m.url)).filter((u): u is string => !!u));
  // Media links come out of the text, t.co links are expanded: one pass for both.
  let text = replaceLinks(decodeHTML(raw), [
    ...[...mediaLinks].map((link): [string, string] => [link, '']),
    ...list(entities.urls).map((u): [string | null, string | null] => [str(u.url), str(u.expanded_url)]),
  ]);
  text = ((unreadDate === null ? noteText(ctx, publishedAt, text) : null) ?? text).replace(/\r\n?/g, '\n').trim();
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
    unreadDate,
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
  // The earliest date read among the versions (a version whose date could not be read has none).
  const read = sorted.flatMap((v) => (v.item.post && v.item.post.unreadDate == null ? [v.item.post] : []));
  const earliest = read.length ? read.reduce((a, b) => (b.publishedAt < a.publishedAt ? b : a)) : null;
  const post = {
    ...last.post,
    externalId: initial,
    ...(earliest ? { publishedAt: earliest.publishedAt, unreadDate: null } : { publishedAt: first.publishedAt, unreadDate: first.unreadDate ?? null }),
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
  const maxValueBytes = (opts.limits ?? DEFAULT_LIMITS).maxValueBytes;
  const chains = new Map<string, { ids: string[] | null; versions: Version[] }>();
  for (const name of files) {
    for await (const entry of jsonArrayElements(open(name), { path: null, assignment: true, what: name || 'tweets.js', maxValueBytes })) {
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
