// Reading an export as the platforms hand it out. `inspectExport` finds the format and its files
// (422 naming what is missing and what was found); `scanExport` reads every post once to count
// what will be imported and what is left out, and why; `readExport` yields the posts to import.
// Nothing here touches the database: the bytes come from a `ByteSource`.
import type { Readable } from 'node:stream';
import { DEFAULT_LIMITS, openArchive, type ArchiveLimits, type ByteSource, type ContainerKind, type OpenedArchive } from './container.js';
import { ArchiveError, clip } from './errors.js';
import { turns } from './turns.js';
import { instantText } from '../../lib/instants.js';
import { readBluesky } from './bluesky.js';
import { instagramVisibility, readInstagram } from './instagram.js';
import { readLinkedIn } from './linkedin.js';
import { readMastodon } from './mastodon.js';
import { readMedium } from './medium.js';
import { readMisskey } from './misskey.js';
import { readPixelfed } from './pixelfed.js';
import { readSubstack } from './substack.js';
import { readThreads } from './threads.js';
import {
  ARCHIVE_FORMATS,
  SKIP_REASONS,
  type ArchiveFormat,
  type ArchiveItem,
  type ArchivePost,
  type FormatFiles,
  type ReadOptions,
  type SkipReason,
  type Visibility,
} from './types.js';
import { readWordPress } from './wordpress.js';
import { readX, readXContext } from './x.js';
import { bytesReader, readHeader } from '@ipld/car/decoder';

export * from './types.js';
export { ArchiveError } from './errors.js';
export { bufferSource, DEFAULT_LIMITS, type ArchiveLimits, type ByteSource, type ContainerKind } from './container.js';

/** `data/tweets.js`, `data/tweets-part1.js`, the older `data/tweet.js`, maybe inside a folder. */
const X_POSTS = /^((?:\.\/)?(?:[^/]+\/)*?)data\/(?:tweets|tweet)(?:-part(\d+))?\.js$/;
/** Instagram: `your_instagram_activity/content/posts_1.json` (or `…/media/…`, or the older `content/posts_1.json`). */
const INSTAGRAM_POSTS = /^((?:[^/]+\/)*?)(?:your_instagram_activity\/)?(?:content|media)\/posts_(\d+)\.json$/;
/** Threads, in the same Meta export: `your_instagram_activity/threads/threads_and_replies.json`. */
const THREADS_POSTS = /^((?:[^/]+\/)*?)(?:your_instagram_activity\/)?threads\/threads_and_replies\.json$/;
/** Medium: one page per story, `posts/<date>_<title>-<id>.html` (drafts `posts/draft_…`). */
const MEDIUM_POSTS = /^((?:[^/]+\/)*?)posts\/[^/]+\.html$/i;
/** Misskey / Sharkey / Firefish notes (`notes-2024-06-01-12-00-00.json`) and Pixelfed's `pixelfed-statuses.json`, zipped. */
const MISSKEY_NOTES = /(^|\/)notes[^/]*\.json$/i;
const PIXELFED_STATUSES = /(^|\/)pixelfed-statuses[^/]*\.json$/i;

/** A CAR v1 header: a varint length, then the DAG-CBOR map {version: 1, roots: [CID]} (read by @ipld/car). */
async function isCar(head: Buffer): Promise<boolean> {
  if (head.length < 11 || head[0]! > 0x7f || head[1] !== 0xa2) return false;
  try {
    const header = await readHeader(bytesReader(new Uint8Array(head)), 1);
    return header.roots.length > 0;
  } catch {
    return false;
  }
}

/** What the export is and which of its files hold what. */
export interface ExportLayout extends FormatFiles {
  container: ContainerKind;
  /** The folder holding the export's files inside the container ('' at the top). */
  root: string;
  entryCount: number;
}

async function sniff(archive: OpenedArchive): Promise<ArchiveFormat | null> {
  const stream = archive.open('');
  const parts: Buffer[] = [];
  let got = 0;
  try {
    for await (const c of stream) {
      parts.push(c as Buffer);
      got += (c as Buffer).length;
      if (got >= 8192) break;
    }
  } finally {
    stream.destroy();
  }
  const bytes = Buffer.concat(parts);
  if (await isCar(bytes)) return 'bluesky';
  const h = bytes
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (/^window\.YTD\.tweets?\.part\d+\s*=/.test(h)) return 'x';
  if (/^"?Date"?,/.test(h) && /ShareCommentary/.test(h)) return 'linkedin';
  if (/^"?post_id"?,/.test(h) && /is_published/.test(h)) return 'substack';
  if (h.startsWith('{') && /"text_post_app_text_posts"/.test(h)) return 'threads';
  if (h.startsWith('{') && /"orderedItems"|"@context"|"OrderedCollection"/.test(h)) return 'mastodon';
  if (h.startsWith('[') && /"_v"\s*:|"pf_type"|"shortcode"/.test(h) && /"created_at"/.test(h)) return 'pixelfed';
  if (h.startsWith('{') && /"data"\s*:\s*\[/.test(h) && /"_v"\s*:|"pf_type"|"shortcode"/.test(h)) return 'pixelfed';
  if (h.startsWith('[') && /"createdAt"/.test(h) && /"renoteId"|"visibility"|"fileIds"/.test(h)) return 'misskey';
  if (h.startsWith('<') && /class="h-entry"/.test(h) && /data-field="body"|medium\.com/.test(h)) return 'medium';
  if (h.startsWith('<') && /<rss[\s>]/.test(h) && /wordpress\.org\/export\//.test(h)) return 'wordpress';
  if (h.startsWith('[') && /"creation_timestamp"/.test(h) && /"media"\s*:/.test(h)) return 'instagram';
  return null;
}

const formatList = ARCHIVE_FORMATS.join(', ');
const EXPECTED =
  'X (data/tweets.js), Mastodon (outbox.json), LinkedIn (Shares.csv), Bluesky (the repository .car), WordPress (the WXR .xml export), Instagram (your_instagram_activity/content/posts_1.json), Threads (your_instagram_activity/threads/threads_and_replies.json), Medium (the export ZIP with posts/*.html), Substack (the export ZIP with posts.csv and posts/<post_id>.html), Misskey, Sharkey or Firefish (the notes export .json) or Pixelfed (pixelfed-statuses.json)';
/** The file each format needs, for the 422 of a container that lacks it. */
const NEEDS: Record<ArchiveFormat, string> = {
  x: 'data/tweets.js',
  mastodon: 'outbox.json',
  linkedin: 'Shares.csv',
  bluesky: 'Bluesky repository (.car)',
  wordpress: 'WordPress export (.xml)',
  instagram: 'your_instagram_activity/content/posts_1.json',
  threads: 'your_instagram_activity/threads/threads_and_replies.json',
  medium: 'posts/*.html (Medium stories)',
  substack: 'posts.csv (Substack)',
  misskey: 'notes export (notes-….json)',
  pixelfed: 'pixelfed-statuses.json',
};

function found(archive: OpenedArchive): string {
  const names = archive.entries.map((e) => e.name);
  const shown = names
    .slice(0, 20)
    .map((n) => clip(n, 80))
    .join(', ');
  return names.length > 20 ? `${shown}, … (${names.length} files)` : `${shown} (${names.length} file${names.length === 1 ? '' : 's'})`;
}

/** Finds the format and its files; `format` (when given) must be what the files are. */
export async function inspectExport(archive: OpenedArchive, format?: string | null, limits: ArchiveLimits = DEFAULT_LIMITS): Promise<ExportLayout> {
  const wanted = format ? (format.trim().toLowerCase() as ArchiveFormat) : null;
  if (wanted && !ARCHIVE_FORMATS.includes(wanted))
    throw new ArchiveError('unknown_format', `format must be one of ${formatList}, got ${JSON.stringify(format)}.`, 'format');
  const base = { container: archive.container, entryCount: archive.entries.length };
  if (archive.container === 'file' || archive.container === 'gzip') {
    const f = await sniff(archive);
    if (!f)
      throw new ArchiveError(
        'unknown_format',
        `The upload is not an export we can read. Understood: ${EXPECTED}, each as the bare file (or gzipped) or inside the ZIP (or, for Mastodon, tar.gz) archive the platform hands out.`,
      );
    if (wanted && wanted !== f) throw new ArchiveError('format_mismatch', `format is ${wanted} but the upload is a ${f} export.`, 'format');
    return { ...base, format: f, posts: [''], side: {}, root: '' };
  }
  const names = archive.entries.map((e) => e.name);
  const candidates: ExportLayout[] = [];
  // X: the post files, in part order; the side files beside them.
  const xFiles = names.flatMap((n) => {
    const m = X_POSTS.exec(n);
    return m ? [{ n, root: m[1]!, part: Number(m[2] ?? 0) }] : [];
  });
  if (xFiles.length) {
    const root = xFiles[0]!.root;
    const side: Record<string, string> = {};
    for (const [role, file] of [
      ['account', 'account.js'],
      ['notes', 'note-tweet.js'],
      ['protected', 'protected-history.js'],
    ] as const) {
      if (names.includes(`${root}data/${file}`)) side[role] = `${root}data/${file}`;
    }
    const posts = xFiles
      .filter((x) => x.root === root)
      .sort((a, b) => a.part - b.part)
      .map((x) => x.n);
    // X splits a very large account into a handful of parts; thousands of them are not an export.
    if (posts.length > limits.maxPostFiles)
      throw new ArchiveError(
        'too_large',
        `The ${archive.container.toUpperCase()} holds ${posts.length} post files (data/tweets-partN.js); at most ${limits.maxPostFiles} are accepted.`,
      );
    candidates.push({ ...base, format: 'x', posts, side, root });
  }
  const outbox = names.find((n) => /(^|\/)outbox\.json$/.test(n));
  if (outbox) candidates.push({ ...base, format: 'mastodon', posts: [outbox], side: {}, root: outbox.slice(0, -'outbox.json'.length) });
  const shares = names.find((n) => /(^|\/)shares\.csv$/i.test(n));
  if (shares) candidates.push({ ...base, format: 'linkedin', posts: [shares], side: {}, root: shares.slice(0, shares.length - 'shares.csv'.length) });
  // Instagram: the post files in part order, in the first folder that has them; the account's privacy beside.
  const igFiles = names.flatMap((n) => {
    const m = INSTAGRAM_POSTS.exec(n);
    return m ? [{ n, root: m[1]!, part: Number(m[2]) }] : [];
  });
  if (igFiles.length) {
    const root = igFiles[0]!.root;
    const posts = igFiles
      .filter((f) => f.root === root)
      .sort((a, b) => a.part - b.part)
      .map((f) => f.n);
    const info = names.find((n) => n.startsWith(root) && /(^|\/)personal_information\.json$/.test(n));
    candidates.push({ ...base, format: 'instagram', posts, side: info ? { personal: info } : {}, root });
  }
  const threads = names.flatMap((n) => {
    const m = THREADS_POSTS.exec(n);
    return m ? [{ n, root: m[1]! }] : [];
  })[0];
  if (threads) candidates.push({ ...base, format: 'threads', posts: [threads.n], side: {}, root: threads.root });
  // Substack's posts.csv comes with posts/<post_id>.html: it is Substack before the pages could be Medium's.
  const substack = names.find((n) => /(^|\/)posts\.csv$/i.test(n));
  if (substack) candidates.push({ ...base, format: 'substack', posts: [substack], side: {}, root: substack.slice(0, substack.length - 'posts.csv'.length) });
  else {
    const pages = names.flatMap((n) => {
      const m = MEDIUM_POSTS.exec(n);
      return m && !/(^|\/)(__MACOSX|\.)/.test(n) ? [{ n, root: m[1]! }] : [];
    });
    if (pages.length) {
      const root = pages[0]!.root;
      candidates.push({
        ...base,
        format: 'medium',
        posts: pages
          .filter((p) => p.root === root)
          .map((p) => p.n)
          .sort(),
        side: {},
        root,
      });
    }
  }
  const pixelfed = names.find((n) => PIXELFED_STATUSES.test(n));
  if (pixelfed) candidates.push({ ...base, format: 'pixelfed', posts: [pixelfed], side: {}, root: '' });
  const notes = names.find((n) => MISSKEY_NOTES.test(n));
  if (notes) candidates.push({ ...base, format: 'misskey', posts: [notes], side: {}, root: '' });
  // Bluesky and WordPress hand out one bare file; a ZIP of it (or of WordPress.com's several XML files) is read too.
  const car = names.find((n) => /\.car$/i.test(n));
  if (car) candidates.push({ ...base, format: 'bluesky', posts: [car], side: {}, root: '' });
  const xml = names.filter((n) => /\.xml$/i.test(n) && !/(^|\/)(__MACOSX|\.)/.test(n)).sort();
  if (xml.length) candidates.push({ ...base, format: 'wordpress', posts: xml, side: {}, root: '' });
  const pick = wanted ? candidates.find((c) => c.format === wanted) : candidates[0];
  if (!pick) {
    const need = wanted ? NEEDS[wanted] : EXPECTED;
    throw new ArchiveError('missing_file', `The ${archive.container.toUpperCase()} holds no ${need}. Found: ${found(archive)}.`);
  }
  return pick;
}

export interface ScanSummary {
  format: ArchiveFormat;
  container: ContainerKind;
  /** The files the posts were read from, then the side files used. */
  files_used: string[];
  entry_count: number;
  /** Posts an ingest will import. */
  posts: number;
  by_visibility: Record<Visibility, number>;
  /** Of `posts`: the author's answers to their own posts (threads). */
  self_replies: number;
  /** Of `posts`: media references kept. */
  media: number;
  skipped: Record<SkipReason, number>;
  /** Of `posts`: those whose date could not be read or is outside the years 0001–9999 (kept, flagged `unread_date`). */
  unread_dates: number;
  /** The earliest and latest date read (null when no post's date could be read). */
  first_post_at: string | null;
  last_post_at: string | null;
}

export interface Scan {
  layout: ExportLayout;
  summary: ScanSummary;
  /** X: the account's own user id (from account.js, or inferred from the self-replies). */
  ownUserId: string | null;
}

/** Lone surrogates (half of a character outside the BMP, e.g. from a `\\ud83d` escape cut in two). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text as a database can store it and a JSON answer can carry it: a lone surrogate becomes
 * U+FFFD (what a UTF-8 decoder makes of one), NUL is dropped (PostgreSQL's text refuses it).
 * Everything else is kept as written.
 */
export function storable(s: string): string {
  const t = s.includes('\u0000') ? s.replaceAll('\u0000', '') : s;
  return /[\uD800-\uDFFF]/.test(t) ? t.replace(LONE_SURROGATE, '\uFFFD') : t;
}

const storableOrNull = (s: string | null): string | null => (s === null ? null : storable(s));

/** Every string of a post made storable (`storable`), at parse time, whatever the format. */
function clean(p: ArchivePost): ArchivePost {
  return {
    ...p,
    externalId: storable(p.externalId),
    url: storableOrNull(p.url),
    text: storable(p.text),
    replyTo: storableOrNull(p.replyTo),
    media: p.media.map((m) => ({ ...m, url: storableOrNull(m.url), alt_text: storableOrNull(m.alt_text), archive_path: storableOrNull(m.archive_path) })),
  };
}

async function* formatItems(archive: OpenedArchive, layout: ExportLayout, opts: ReadOptions): AsyncGenerator<ArchiveItem> {
  const open = (name: string): Readable => archive.open(name);
  const entries = new Set(archive.entries.map((e) => e.name));
  if (layout.format === 'x') {
    const ctx = await readXContext(open, layout.side, entries, layout.root, opts.limits);
    yield* readX(open, layout.posts, ctx, opts);
  } else if (layout.format === 'mastodon') yield* readMastodon(open, layout.posts[0]!, opts, entries, layout.root);
  else if (layout.format === 'bluesky') yield* readBluesky(() => open(layout.posts[0]!), layout.posts[0] || 'The .car file', opts);
  else if (layout.format === 'wordpress') for (const f of layout.posts) yield* readWordPress(open(f), f || 'The .xml file', opts);
  else if (layout.format === 'instagram') {
    const visibility = await instagramVisibility(layout.side.personal ? open(layout.side.personal) : null);
    yield* readInstagram(open, layout.posts, { visibility, entries, root: layout.root }, opts);
  } else if (layout.format === 'threads') yield* readThreads(open, layout.posts[0]!, { entries, root: layout.root }, opts);
  else if (layout.format === 'medium') yield* readMedium(open, layout.posts, opts);
  else if (layout.format === 'substack') yield* readSubstack(open, layout.posts[0]!, { entries, root: layout.root }, opts);
  else if (layout.format === 'misskey') yield* readMisskey(open(layout.posts[0]!), layout.posts[0]!, opts);
  else if (layout.format === 'pixelfed') yield* readPixelfed(open(layout.posts[0]!), layout.posts[0]!, opts);
  else yield* readLinkedIn(open(layout.posts[0]!), layout.posts[0]!, opts);
}

/** The items of the export, their text storable, with a turn of the event loop given now and then. */
async function* items(archive: OpenedArchive, layout: ExportLayout, opts: ReadOptions): AsyncGenerator<ArchiveItem> {
  const turn = turns();
  for await (const item of formatItems(archive, layout, opts)) {
    yield item.post ? ({ ...item, post: clean(item.post) } as ArchiveItem) : item;
    await turn();
  }
}

const zeroSkips = () => Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<SkipReason, number>;

/** What the scan counts of a post. */
type Counted = Pick<ArchivePost, 'visibility' | 'replyTo' | 'publishedAt' | 'unreadDate'> & { media: unknown[] };
const counted = (p: ArchivePost): Counted => ({
  visibility: p.visibility,
  replyTo: p.replyTo,
  publishedAt: p.publishedAt,
  unreadDate: p.unreadDate ?? null,
  media: p.media,
});

/** Reads the whole export once: what an ingest will import, and everything left out, by reason. */
export async function scanExport(
  src: ByteSource,
  opts: { format?: string | null; includeNonPublic: boolean; limits?: ArchiveLimits; now?: Date },
): Promise<Scan> {
  const archive = await openArchive(src, opts.limits ?? DEFAULT_LIMITS);
  try {
    const limits = opts.limits ?? DEFAULT_LIMITS;
    const layout = await inspectExport(archive, opts.format, limits);
    const summary: ScanSummary = {
      format: layout.format,
      container: layout.container,
      files_used: [...layout.posts, ...Object.values(layout.side)],
      entry_count: layout.entryCount,
      posts: 0,
      by_visibility: { public: 0, unlisted: 0, followers: 0, connections: 0 },
      self_replies: 0,
      media: 0,
      skipped: zeroSkips(),
      unread_dates: 0,
      first_post_at: null,
      last_post_at: null,
    };
    let first = Infinity;
    let last = -Infinity;
    const count = (p: Counted) => {
      summary.posts += 1;
      summary.by_visibility[p.visibility] += 1;
      summary.media += p.media.length;
      if (p.replyTo) summary.self_replies += 1;
      // A post whose date could not be read carries the import's time, which is not a date of the export.
      if (p.unreadDate !== null) summary.unread_dates += 1;
      else {
        first = Math.min(first, p.publishedAt.getTime());
        last = Math.max(last, p.publishedAt.getTime());
      }
    };
    // X without account.js: replies wait until every post id is known, to find the account's own id.
    // Only what `count` needs is kept of them, not the posts.
    const ids = new Set<string>();
    const pending: Array<{ post: Counted; user: string }> = [];
    let ownUserId: string | null = null;
    const turn = turns();
    // With account.js nothing waits (and no id is kept); without it the ids are bounded.
    const inferring = layout.format === 'x' && !layout.side.account;
    for await (const item of items(archive, layout, { includeNonPublic: opts.includeNonPublic, limits, now: opts.now })) {
      if (item.skip) summary.skipped[item.skip] += 1;
      else if (item.replyToUser !== undefined) pending.push({ post: counted(item.post), user: item.replyToUser });
      else count(item.post);
      if (inferring && item.post) {
        ids.add(item.post.externalId);
        if (ids.size > limits.maxInferredPosts)
          throw new ArchiveError(
            'too_large',
            `The X export has no data/account.js and more than ${limits.maxInferredPosts} posts; upload the whole archive ZIP as X hands it out (its account.js names the account).`,
          );
      }
    }
    if (layout.format === 'x') {
      const votes = new Map<string, number>();
      for (const p of pending) {
        if (ids.has(p.post.replyTo!)) votes.set(p.user, (votes.get(p.user) ?? 0) + 1);
        await turn();
      }
      ownUserId = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
      for (const p of pending) {
        if (p.user === ownUserId) count(p.post);
        else summary.skipped.reply += 1;
        await turn();
      }
    }
    if (summary.posts === 0) {
      const left = Object.entries(summary.skipped)
        .filter(([, n]) => n > 0)
        .map(([r, n]) => `${n} ${r.replace('_', ' ')}`)
        .join(', ');
      throw new ArchiveError('unreadable', `The ${layout.format} export holds no post to import${left ? ` (left out: ${left})` : ''}.`);
    }
    // Every date counted is representable (`dated`); none counted (every date unread) is null.
    summary.first_post_at = instantText(new Date(first));
    summary.last_post_at = instantText(new Date(last));
    return { layout, summary, ownUserId };
  } finally {
    archive.close();
  }
}

/** The posts to import, in the export's order (a scan found the layout and the X account id). */
export async function* readExport(
  src: ByteSource,
  opts: { format: ArchiveFormat; includeNonPublic: boolean; ownUserId: string | null; limits?: ArchiveLimits; now?: Date },
): AsyncGenerator<ArchivePost> {
  const archive = await openArchive(src, opts.limits ?? DEFAULT_LIMITS);
  try {
    const limits = opts.limits ?? DEFAULT_LIMITS;
    const layout = await inspectExport(archive, opts.format, limits);
    for await (const item of items(archive, layout, { includeNonPublic: opts.includeNonPublic, ownUserId: opts.ownUserId, limits, now: opts.now }))
      if (item.post) yield item.post;
  } finally {
    archive.close();
  }
}
