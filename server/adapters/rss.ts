// RSS 2.0 (and 0.9x), RSS 1.0 (RDF), Atom and JSON Feed 1.0/1.1 feeds. The handle is the feed's
// URL; there is no credential. Metrics are absent in feeds except a comment count
// (`slash:comments`, Atom `thr:total`), which becomes `replies`; the others are 0.
// The document's encoding is decided by the XML rules (server/lib/charset.ts): BOM, HTTP
// charset, XML declaration. Every item of the document is read (a podcast feed holds its whole
// history in one document); the bound is the document's size, FEED_MAX_BYTES.
import { createHash } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { decodeXml } from '../lib/charset.js';
import { feedDate } from './feed-dates.js';
import { send } from './http.js';
import { count, dated, htmlToText, httpUrl, plainText } from './text.js';
import { AdapterError, type AdapterContext, type FetchedPost, type MediaRef, type MediaType, type PlatformAdapter } from './types.js';

/** The largest feed document read (16 MiB: a podcast's whole history with its show notes fits). */
export const FEED_MAX_BYTES = 16 * 1024 * 1024;
/** The formats read, for messages. */
export const FEED_FORMATS = 'RSS 2.0 (and 0.9x), RSS 1.0 (RDF), Atom 1.0 and JSON Feed 1.0/1.1';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ['item', 'entry', 'link', 'enclosure', 'media:content', 'media:group'].includes(name),
});

type Node = Record<string, unknown>;

/** The text of an element, whether the parser made it a string or an object with `#text`. */
function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (v && typeof v === 'object' && '#text' in v) return str((v as Node)['#text']);
  if (Array.isArray(v)) return str(v[0]);
  return '';
}

function atomLink(links: unknown): string | null {
  if (!Array.isArray(links)) return httpUrl(str(links));
  const alternate: unknown = links.find((l: Node) => !l['@_rel'] || l['@_rel'] === 'alternate') ?? links[0];
  return httpUrl(typeof alternate === 'object' ? (alternate as Node)['@_href'] : alternate);
}

const list = (v: unknown): Node[] => (Array.isArray(v) ? v : v && typeof v === 'object' ? [v] : []).filter((x): x is Node => !!x && typeof x === 'object');

/** The media type of an enclosure or `media:content`, from its MIME type, else its `medium`. */
function mediaTypeOf(mime: string, medium: string): MediaType {
  if (mime === 'image/gif') return 'gif';
  const kind = mime.split('/')[0] || medium;
  return kind === 'image' || kind === 'video' || kind === 'audio' ? kind : 'other';
}

/**
 * An item's media: Media RSS `media:content` (alone or in `media:group`s; alt text from
 * `media:description`, else `media:title`, each read as its `type` says; `width`/`height`), then RSS `<enclosure>` and Atom
 * `<link rel="enclosure">` not already named; in document order, each URL once.
 */
function feedMedia(item: Node): MediaRef[] {
  const out: MediaRef[] = [];
  const seen = new Set<string>();
  const add = (url: string | null, mime: string, medium: string, alt: string, width: unknown, height: unknown) => {
    if (!url || seen.has(url)) return;
    seen.add(url);
    out.push({
      type: mediaTypeOf(mime.toLowerCase(), medium.toLowerCase()),
      url,
      archive_path: null,
      alt_text: alt || null,
      width: count(width) || null,
      height: count(height) || null,
    });
  };
  const contents = [...list(item['media:content']), ...list(item['media:group']).flatMap((g) => list(g['media:content']))];
  for (const c of contents) {
    add(
      httpUrl(c['@_url']),
      str(c['@_type']),
      str(c['@_medium']),
      typedText(c['media:description']) || typedText(c['media:title']) || typedText(item['media:description']),
      c['@_width'],
      c['@_height'],
    );
  }
  for (const e of list(item.enclosure)) add(httpUrl(e['@_url']), str(e['@_type']), '', '', null, null);
  for (const l of list(item.link).filter((l) => l['@_rel'] === 'enclosure'))
    add(httpUrl(l['@_href']), str(l['@_type']), '', plainText(str(l['@_title'])), null, null);
  return out;
}

/**
 * An element that says what its text is (an Atom `title`, `summary` or `content`; a Media RSS
 * `media:description` or `media:title`) as text: read as HTML when its `type` says so (`html`,
 * `xhtml`, `text/html`), else as the plain text it is (Atom's `text` and Media RSS's `plain`, the
 * defaults). RSS has no such attribute: its `title` and `description` are read as HTML, as feed
 * readers do; JSON Feed says which field is which (`content_html`, `content_text`, a text `title`).
 */
function typedText(v: unknown): string {
  const node: unknown = Array.isArray(v) ? v[0] : v;
  const type = node && typeof node === 'object' ? str((node as Node)['@_type']).toLowerCase() : '';
  return type.includes('html') ? htmlToText(str(node)) : plainText(str(node));
}

/** Title and body (each already text) as one text; the title is left out when the body already starts with it. */
function joinText(t: string, b: string): string {
  if (!t) return b;
  if (!b || b.startsWith(t)) return b || t;
  return `${t}\n\n${b}`;
}

/** A feed item's date, or the fetch's time with the date as written (`dated`). */
const feedDated = (raw: string, now: Date) => dated(raw, feedDate(raw), now);

/** The id of an item without one: its text and written date, so that the same item keeps it at every fetch. */
const contentId = (raw: string, text: string) => createHash('sha256').update(`${raw}\n${text}`).digest('hex');

function toPost(item: Node, atom: boolean, now: Date): FetchedPost | null {
  const url = atom ? atomLink(item.link) : httpUrl(str(item.link));
  const title = atom ? typedText(item.title) : htmlToText(str(item.title));
  const body = atom ? typedText(item.content) || typedText(item.summary) : htmlToText(str(item['content:encoded']) || str(item.description));
  const text = joinText(title, body);
  if (!text) return null;
  const raw = str(atom ? item.published || item.updated : item.pubDate || item['dc:date']);
  const { publishedAt: published, unreadDate } = feedDated(raw, now);
  const id = str(atom ? item.id : item.guid) || url || contentId(raw, text);
  return {
    unreadDate,
    externalId: id.slice(0, 512),
    url,
    text,
    publishedAt: published,
    metrics: { likes: 0, reposts: 0, replies: count(str(item['slash:comments']) || str(item['thr:total'])), quotes: 0 },
    media: feedMedia(item),
  };
}

/** "not a feed": the handle cannot work (422 on `handle` at connect, `upstream_invalid` for a run). */
export const notAFeed = (what: string) => new AdapterError('invalid_input', `the address is not a feed: ${what}. Feeds read: ${FEED_FORMATS}.`, null, 'handle');

/** Parses an XML feed document; throws `notAFeed` when it is not RSS or Atom. */
export function parseFeed(xml: string, now: Date): { title: string; posts: FetchedPost[] } {
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (err) {
    throw notAFeed(`the document is not well-formed XML (${(err as Error).message.split('\n')[0]})`);
  }
  const rss = doc.rss as Node | undefined;
  const rdf = doc['rdf:RDF'] as Node | undefined;
  const feed = doc.feed as Node | undefined;
  const channel = (rss?.channel ?? rdf?.channel) as Node | undefined;
  const items = feed ? feed.entry : rss ? channel?.item : rdf?.item;
  if (!feed && !channel) {
    const root = Object.keys(doc).find((k) => !k.startsWith('?') && !k.startsWith('#'));
    throw notAFeed(root ? `it is an XML document whose root element is <${root}>` : 'the document is empty');
  }
  const posts = ((items as Node[] | undefined) ?? []).map((i) => toPost(i, Boolean(feed), now)).filter((p): p is FetchedPost => p !== null);
  return { title: feed ? typedText(feed.title) : htmlToText(str(channel?.title)), posts };
}

// ---- JSON Feed (https://www.jsonfeed.org/version/1.1/, also 1.0) ----

const JSON_FEED = /^https?:\/\/jsonfeed\.org\/version\/1(\.\d+)?\/?$/;

/** A JSON Feed's attachments (`mime_type`, `title` as alt text) and the item's `image`, as media. */
function jsonFeedMedia(item: Node): MediaRef[] {
  const out: MediaRef[] = [];
  const seen = new Set<string>();
  const add = (url: string | null, mime: string, alt: string) => {
    if (!url || seen.has(url)) return;
    seen.add(url);
    out.push({ type: mediaTypeOf(mime.toLowerCase(), ''), url, archive_path: null, alt_text: alt.trim() || null, width: null, height: null });
  };
  if (typeof item.image === 'string') add(httpUrl(item.image), 'image/*', '');
  for (const a of list(item.attachments)) add(httpUrl(a.url), str(a.mime_type), str(a.title));
  return out;
}

/** Names of a JSON Feed's `authors` (1.1) or `author` (1.0). */
const authorsOf = (n: Node): string[] => [...list(n.authors), ...list(n.author)].map((a) => str(a.name).trim()).filter(Boolean);

/** Parses a JSON Feed 1.0/1.1 document (already JSON); throws `notAFeed` for other JSON. */
export function parseJsonFeed(doc: unknown, now: Date): { title: string; posts: FetchedPost[] } {
  const d = doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Node) : null;
  if (!d || typeof d.version !== 'string' || !JSON_FEED.test(d.version)) {
    const keys = d ? Object.keys(d).slice(0, 5).join(', ') : Array.isArray(doc) ? 'an array' : typeof doc;
    throw notAFeed(`it is JSON without a JSON Feed "version" (${d ? `keys: ${keys || 'none'}` : keys})`);
  }
  const posts: FetchedPost[] = [];
  for (const item of list(d.items)) {
    const html = str(item.content_html);
    // `content_html` is HTML; `title`, `content_text` and `summary` are plain text: kept as written, not read as HTML.
    const title = plainText(str(item.title));
    const text = html ? joinText(title, htmlToText(html)) : [title, plainText(str(item.content_text) || str(item.summary))].filter(Boolean).join('\n\n');
    if (!text) continue;
    const raw = str(item.date_published) || str(item.date_modified);
    const { publishedAt, unreadDate } = feedDated(raw, now);
    const url = httpUrl(item.url) ?? httpUrl(item.external_url);
    const id = str(item.id) || url || contentId(raw, text);
    posts.push({
      externalId: id.slice(0, 512),
      url,
      text,
      publishedAt,
      unreadDate,
      metrics: { likes: 0, reposts: 0, replies: 0, quotes: 0 },
      media: jsonFeedMedia(item),
    });
  }
  return { title: plainText(str(d.title)) || authorsOf(d).join(', '), posts };
}

/** Reads a fetched document as a feed: JSON Feed when it is JSON, else XML (RSS, Atom) in its declared encoding. */
export function readFeedDocument(body: Buffer, contentType: string | null, now: Date): { title: string; posts: FetchedPost[] } {
  const mime = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const xml = decodeXml(body, contentType);
  const start = xml.text.trimStart();
  if (mime === 'application/feed+json' || mime === 'application/json' || start.startsWith('{') || start.startsWith('[')) {
    let doc: unknown;
    try {
      // JSON is UTF-8 (RFC 8259); the decoder above honoured a BOM and a declared charset alike.
      doc = JSON.parse(xml.text);
    } catch {
      throw notAFeed(`it is ${mime || 'a document'} that is not well-formed JSON`);
    }
    return parseJsonFeed(doc, now);
  }
  if (mime === 'text/html' || /^<!doctype html|^<html[\s>]/i.test(start)) {
    const alt = /<link\b[^>]*\btype=["']application\/(?:rss|atom|feed)\+(?:xml|json)["'][^>]*>/i.exec(start.slice(0, 65536))?.[0];
    const href = alt ? /\bhref=["']([^"']+)["']/i.exec(alt)?.[1] : undefined;
    throw notAFeed(`it is an HTML page${href ? `, which names its feed at ${href} (connect that address)` : ''}`);
  }
  return parseFeed(xml.text, now);
}

async function fetchFeed(ctx: AdapterContext, handle: string) {
  const res = await send(ctx, {
    url: handle,
    what: 'the feed',
    // Many feeds are still served over plain http; the outbound client's address checks apply all the same.
    allowHttp: true,
    maxBytes: FEED_MAX_BYTES,
    headers: {
      accept: 'application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, */*;q=0.5',
    },
  });
  return readFeedDocument(res.body, res.headers.get('content-type'), ctx.now);
}

export const rssAdapter: PlatformAdapter = {
  platform: 'rss',
  // Every item of the document: its size (FEED_MAX_BYTES) is the bound.
  ingestLimit: Number.MAX_SAFE_INTEGER,
  needsCredentials: false,
  normalizeHandle(handle) {
    let u: URL;
    try {
      u = new URL(handle);
    } catch {
      throw new AdapterError('invalid_input', 'an rss handle is the feed URL, e.g. https://blog.example.com/feed.xml', null, 'handle');
    }
    if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new AdapterError('invalid_input', 'an rss handle must be an http(s):// URL', null, 'handle');
    return handle;
  },
  async probe(ctx, handle) {
    const feed = await fetchFeed(ctx, handle);
    return { displayName: feed.title || handle };
  },
  async listPosts(ctx, handle, _creds, opts) {
    const feed = await fetchFeed(ctx, handle);
    return { posts: feed.posts.slice(0, opts.max), withdrawn: [] };
  },
};
