// RSS 2.0, RSS 1.0 (RDF) and Atom feeds. The handle is the feed's URL; there is no credential.
// Metrics are absent in feeds except a comment count (`slash:comments`, Atom `thr:total`),
// which becomes `replies`; the others are 0.
import { createHash } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { send } from './http.js';
import { count, dateOf, htmlToText, httpUrl } from './text.js';
import { AdapterError, type AdapterContext, type FetchedPost, type MediaRef, type MediaType, type PlatformAdapter } from './types.js';

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
 * `media:description`, else `media:title`; `width`/`height`), then RSS `<enclosure>` and Atom
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
      alt_text: htmlToText(alt) || null,
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
      str(c['media:description']) || str(c['media:title']) || str(item['media:description']),
      c['@_width'],
      c['@_height'],
    );
  }
  for (const e of list(item.enclosure)) add(httpUrl(e['@_url']), str(e['@_type']), '', '', null, null);
  for (const l of list(item.link).filter((l) => l['@_rel'] === 'enclosure')) add(httpUrl(l['@_href']), str(l['@_type']), '', str(l['@_title']), null, null);
  return out;
}

/** Title and body as one text; the title is left out when the body already starts with it. */
function joinText(title: string, body: string): string {
  const t = htmlToText(title);
  const b = htmlToText(body);
  if (!t) return b;
  if (!b || b.startsWith(t)) return b || t;
  return `${t}\n\n${b}`;
}

function toPost(item: Node, atom: boolean, now: Date): FetchedPost | null {
  const url = atom ? atomLink(item.link) : httpUrl(str(item.link));
  const body = atom ? str(item.content) || str(item.summary) : str(item['content:encoded']) || str(item.description);
  const text = joinText(str(item.title), body);
  if (!text) return null;
  const published = dateOf(str(atom ? item.published || item.updated : item.pubDate || item['dc:date'])) ?? now;
  const id = str(atom ? item.id : item.guid) || url || createHash('sha256').update(`${published.toISOString()}\n${text}`).digest('hex');
  return {
    externalId: id.slice(0, 512),
    url,
    text,
    publishedAt: published,
    metrics: { likes: 0, reposts: 0, replies: count(str(item['slash:comments']) || str(item['thr:total'])), quotes: 0 },
    media: feedMedia(item),
  };
}

/** Parses a feed document; throws `invalid_response` when it is not RSS or Atom. */
export function parseFeed(xml: string, now: Date): { title: string; posts: FetchedPost[] } {
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (err) {
    throw new AdapterError('invalid_response', `the feed is not well-formed XML (${(err as Error).message.split('\n')[0]})`);
  }
  const rss = doc.rss as Node | undefined;
  const rdf = doc['rdf:RDF'] as Node | undefined;
  const feed = doc.feed as Node | undefined;
  const channel = (rss?.channel ?? rdf?.channel) as Node | undefined;
  const items = feed ? feed.entry : rss ? channel?.item : rdf?.item;
  if (!feed && !channel) throw new AdapterError('invalid_response', 'the document is neither an RSS nor an Atom feed');
  const posts = ((items as Node[] | undefined) ?? []).map((i) => toPost(i, Boolean(feed), now)).filter((p): p is FetchedPost => p !== null);
  return { title: htmlToText(str((feed ?? channel)?.title)), posts };
}

async function fetchFeed(ctx: AdapterContext, handle: string) {
  const res = await send(ctx, {
    url: handle,
    what: 'the feed',
    // Many feeds are still served over plain http; the outbound client's address checks apply all the same.
    allowHttp: true,
    headers: { accept: 'application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5' },
  });
  return parseFeed(res.text(), ctx.now);
}

export const rssAdapter: PlatformAdapter = {
  platform: 'rss',
  ingestLimit: 200,
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
