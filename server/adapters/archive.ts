// Imported data exports, for platforms whose APIs are closed. `auth_material` is the content of
// the export file and `secondary_auth` its format (detected when absent):
//   x         — `data/tweets.js` of the X archive (`window.YTD.tweets.part0 = [...]`)
//   linkedin  — `Shares.csv` of the LinkedIn data export
//   mastodon  — `outbox.json` of the Mastodon archive (ActivityPub)
// The handle is a name the user gives the archive. Nothing is fetched: ingest reads the stored
// (encrypted) export again, so re-importing means connecting the same handle with a newer file.
// Archives cannot publish.
import { createHash } from 'node:crypto';
import { parse as parseCsv } from 'csv-parse/sync';
import { count, dateOf, htmlToText, httpUrl, tidy } from './text.js';
import { AdapterError, type FetchedPost, type PlatformAdapter } from './types.js';

export type ArchiveFormat = 'x' | 'linkedin' | 'mastodon';
const FORMATS: ArchiveFormat[] = ['x', 'linkedin', 'mastodon'];
type Node = Record<string, unknown>;

const bad = (message: string, field = 'auth_material') => new AdapterError('invalid_input', message, null, field);
const hashId = (...parts: string[]) => createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 32);

export function detectFormat(content: string): ArchiveFormat | null {
  const head = content.trimStart().slice(0, 2000);
  if (/^window\.YTD\./.test(head)) return 'x';
  if (/^\uFEFF?"?Date"?,/.test(head) && /ShareCommentary/.test(head)) return 'linkedin';
  if (head.startsWith('{') && /"orderedItems"/.test(content)) return 'mastodon';
  return null;
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw bad(`auth_material is not a readable ${what}`);
  }
}

/** X: tweets.js is a JavaScript assignment of a JSON array. Retweets and replies are left out. */
function parseX(content: string): FetchedPost[] {
  const eq = content.indexOf('=');
  const list = parseJson(content.slice(eq + 1).trim().replace(/;\s*$/, ''), 'X tweets.js');
  if (!Array.isArray(list)) throw bad('auth_material is not an X tweets.js (no list of tweets)');
  const posts: FetchedPost[] = [];
  for (const entry of list as Node[]) {
    const t = ((entry?.tweet as Node | undefined) ?? entry) as Node;
    const id = String(t.id_str ?? t.id ?? '');
    let text = String(t.full_text ?? t.text ?? '');
    if (!id || !text || text.startsWith('RT @') || t.in_reply_to_status_id_str) continue;
    // Put the real addresses back in place of t.co short links.
    const urls = ((t.entities as Node | undefined)?.urls as Node[] | undefined) ?? [];
    for (const u of urls) if (typeof u.url === 'string' && typeof u.expanded_url === 'string') text = text.split(u.url).join(u.expanded_url);
    const publishedAt = dateOf(t.created_at);
    if (!publishedAt) continue;
    posts.push({
      externalId: id,
      url: `https://x.com/i/web/status/${encodeURIComponent(id)}`,
      text: htmlToText(text),
      publishedAt,
      metrics: { likes: count(t.favorite_count), reposts: count(t.retweet_count), replies: count(t.reply_count), quotes: count(t.quote_count) },
    });
  }
  return posts;
}

/** LinkedIn: Shares.csv (Date, ShareLink, ShareCommentary, SharedUrl, MediaUrl, Visibility); no metrics. */
function parseLinkedIn(content: string): FetchedPost[] {
  let rows: Array<Record<string, string>>;
  try {
    rows = parseCsv(content, { columns: true, bom: true, skip_empty_lines: true, relax_quotes: true, relax_column_count: true, trim: false });
  } catch (err) {
    throw bad(`auth_material is not a readable LinkedIn Shares.csv (${(err as Error).message.split('\n')[0]})`);
  }
  const posts: FetchedPost[] = [];
  for (const r of rows) {
    const text = tidy(r.ShareCommentary ?? '');
    // LinkedIn writes "YYYY-MM-DD HH:MM:SS" in UTC.
    const publishedAt = dateOf(/^\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?$/.test(r.Date ?? '') ? `${r.Date.replace(' ', 'T')}Z` : r.Date);
    if (!text || !publishedAt) continue;
    const link = httpUrl(r.ShareLink);
    posts.push({
      externalId: r.ShareLink || hashId(r.Date, text),
      url: link,
      text,
      publishedAt,
      metrics: { likes: 0, reposts: 0, replies: 0, quotes: 0 },
    });
  }
  return posts;
}

const totalOf = (c: unknown) => (c && typeof c === 'object' ? count((c as Node).totalItems) : 0);

/** Mastodon: outbox.json; `Create` activities of `Note`s that are not replies. */
function parseMastodon(content: string): FetchedPost[] {
  const doc = parseJson(content, 'Mastodon outbox.json') as Node;
  const items = doc?.orderedItems;
  if (!Array.isArray(items)) throw bad('auth_material is not a Mastodon outbox.json (no orderedItems)');
  const posts: FetchedPost[] = [];
  for (const a of items as Node[]) {
    const o = a?.object as Node | undefined;
    if (a?.type !== 'Create' || !o || typeof o !== 'object' || o.type !== 'Note' || o.inReplyTo) continue;
    const text = htmlToText(String(o.content ?? ''));
    const publishedAt = dateOf(o.published ?? a.published);
    const id = String(o.id ?? a.id ?? '');
    if (!text || !publishedAt || !id) continue;
    posts.push({
      externalId: id,
      url: httpUrl(o.url) ?? httpUrl(o.id),
      text,
      publishedAt,
      metrics: { likes: totalOf(o.likes), reposts: totalOf(o.shares), replies: totalOf(o.replies), quotes: 0 },
    });
  }
  return posts;
}

const PARSERS: Record<ArchiveFormat, (content: string) => FetchedPost[]> = { x: parseX, linkedin: parseLinkedIn, mastodon: parseMastodon };

/** Reads an export; newest first. Throws `invalid_input` when it cannot be read or holds no post. */
export function parseArchive(content: string, format: string | null): { format: ArchiveFormat; posts: FetchedPost[] } {
  const f = (format?.trim().toLowerCase() || detectFormat(content)) as ArchiveFormat | null;
  if (!f) throw bad('could not tell the archive format: pass secondary_auth as x, linkedin or mastodon', 'secondary_auth');
  if (!FORMATS.includes(f)) throw bad(`secondary_auth must be x, linkedin or mastodon for an archive, got ${JSON.stringify(format)}`, 'secondary_auth');
  const posts = PARSERS[f](content);
  if (!posts.length) throw bad(`the ${f} archive holds no posts we can read`);
  posts.sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime());
  return { format: f, posts };
}

export const archiveAdapter: PlatformAdapter = {
  platform: 'archive',
  needsCredentials: true,
  ingestLimit: 10_000,
  normalizeHandle(handle) {
    const h = handle.trim();
    if (!h) throw bad('an archive handle is a name for the archive, e.g. ada-x-2024', 'handle');
    return h;
  },
  async probe(_ctx, _handle, creds) {
    const { format, posts } = parseArchive(creds.secret, creds.secondary);
    return { displayName: `${format} archive with ${posts.length} posts` };
  },
  async listPosts(_ctx, _handle, creds, opts) {
    return parseArchive(creds.secret, creds.secondary).posts.slice(0, opts.max);
  },
};
