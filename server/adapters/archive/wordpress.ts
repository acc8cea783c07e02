// WordPress export (Tools → Export, "WXR"): an RSS 2.0 document with WordPress's namespaces
// (`wp:`, `content:`, `excerpt:`, `dc:`). Each `<item>` is a post, page, attachment, menu item …
// (`wp:post_type`) in a state (`wp:status`: publish, draft, pending, future, private, trash …).
// Only published posts are imported, never a private or password-protected one; the rest is
// counted as left out, by reason. The body (`content:encoded`, HTML) becomes text through the
// service's one HTML → text helper, links kept; categories and tags become hashtags at the end.
//
// The document is read as a stream with htmlparser2 in XML mode (already the service's HTML
// parser): it keeps no tree, only the fields of the item being read, so a 1 GB export streams in
// flat memory; and it is lenient where real exports are not well-formed XML (control characters
// pasted into posts, stray `&`), which a strict parser (saxes) refuses for the whole file.
import type { Readable } from 'node:stream';
import { Parser } from 'htmlparser2';
import { count, dated, dateOf, htmlToText, httpUrl, MAX_TEXT } from '../text.js';
import { ArchiveError } from './errors.js';
import type { ArchiveItem, ReadOptions } from './types.js';

/** The fields of one `<item>` the import reads (its direct children, and its comments' approval). */
export interface WxrItem {
  title: string;
  link: string;
  guid: string;
  pubDate: string;
  content: string;
  postId: string;
  postDateGmt: string;
  status: string;
  postType: string;
  password: string;
  categories: Array<{ domain: string; name: string }>;
  approvedComments: number;
}

const FIELDS: Record<string, keyof WxrItem> = {
  title: 'title',
  link: 'link',
  guid: 'guid',
  pubDate: 'pubDate',
  'content:encoded': 'content',
  'wp:post_id': 'postId',
  'wp:post_date_gmt': 'postDateGmt',
  'wp:status': 'status',
  'wp:post_type': 'postType',
  'wp:post_password': 'password',
};

/** A field past this is cut (the text is capped at MAX_TEXT characters anyway). */
const FIELD_MAX = 8 * MAX_TEXT;

/** Categories and tags as hashtags: words joined, each capitalised when there are several (`open source` → `#OpenSource`). */
export function hashtag(name: string): string | null {
  const words = name.split(/[^\p{L}\p{N}\p{M}_]+/u).filter(Boolean);
  if (!words.length) return null;
  return `#${words.length === 1 ? words[0] : words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`;
}

/** `2024-03-01 10:00:00` in UTC (WordPress writes `0000-00-00 00:00:00` for a post never published). */
function gmtDate(v: string): Date | null {
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)$/.exec(v.trim());
  if (!m || m[1]!.startsWith('0000')) return null;
  return dateOf(`${m[1]}T${m[2]}Z`);
}

export function wordpressItem(it: WxrItem, opts: ReadOptions): ArchiveItem {
  const type = it.postType.trim() || 'post';
  if (type !== 'post') return { skip: 'not_a_post' };
  const status = it.status.trim();
  if (status === 'trash') return { skip: 'trashed' };
  if (status === 'private' || (status === 'publish' && it.password.trim())) return { skip: 'private' };
  // draft, pending, future, auto-draft, inherit, and any state a plugin adds: not published.
  if (status !== 'publish') return { skip: 'draft' };
  const link = httpUrl(it.link.trim());
  const id = it.guid.trim() || link || (it.postId.trim() ? `wp-post-${it.postId.trim()}` : '');
  if (!id) return { skip: 'unreadable' };
  const read = gmtDate(it.postDateGmt) ?? dateOf(it.pubDate.trim() || null);
  const { publishedAt, unreadDate } = dated(it.pubDate.trim() || it.postDateGmt, read, opts.now ?? new Date());
  const title = htmlToText(it.title);
  const body = htmlToText(it.content, { links: true });
  const tags = [
    ...new Set(
      it.categories
        .filter((c) => (c.domain === 'category' || c.domain === 'post_tag') && c.name.trim().toLowerCase() !== 'uncategorized')
        .map((c) => hashtag(htmlToText(c.name)))
        .filter((t): t is string => !!t),
    ),
  ];
  const head = title && !body.startsWith(title) ? `${title}\n\n${body}` : body || title;
  const text = [head, tags.join(' ')]
    .filter(Boolean)
    .join('\n\n')
    .slice(0, MAX_TEXT)
    .replace(/[\uD800-\uDBFF]$/, '');
  if (!text) return { skip: 'empty' };
  return {
    post: {
      externalId: id,
      url: link,
      text,
      publishedAt,
      metrics: { likes: 0, reposts: 0, replies: count(it.approvedComments), quotes: 0 },
      visibility: 'public',
      media: [],
      replyTo: null,
      unreadDate,
    },
  };
}

const blank = (): WxrItem => ({
  title: '',
  link: '',
  guid: '',
  pubDate: '',
  content: '',
  postId: '',
  postDateGmt: '',
  status: '',
  postType: '',
  password: '',
  categories: [],
  approvedComments: 0,
});

/** The encoding the XML declaration names (WordPress writes the blog's charset there); UTF-8 otherwise. */
function decoderFor(head: Buffer): TextDecoder {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return new TextDecoder('utf-8');
  const label = /^<\?xml[^>]*encoding=["']([A-Za-z0-9._:-]+)["']/.exec(head.toString('latin1', 0, 200))?.[1];
  try {
    return new TextDecoder(label ?? 'utf-8');
  } catch {
    return new TextDecoder('utf-8');
  }
}

/** The items of a WXR document, streamed: each is classified as soon as its `</item>` is read. */
export async function* readWordPress(input: Readable, what: string, opts: ReadOptions): AsyncGenerator<ArchiveItem> {
  const done: ArchiveItem[] = [];
  let item: WxrItem | null = null;
  let depth = 0; // elements open inside the current item
  let field: keyof WxrItem | null = null;
  let category: { domain: string; name: string } | null = null;
  let inComment = false;
  let approved = '';
  let readingApproved = false;
  let sawRss = false;
  let sawWp = false;
  let sawEnd = false;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'rss') {
          sawRss = true;
          sawWp = Object.entries(attrs).some(([k, v]) => k.startsWith('xmlns:') && /wordpress\.org\/export\//.test(v));
        }
        if (name === 'item' && !item) {
          item = blank();
          depth = 0;
          return;
        }
        if (!item) return;
        depth += 1;
        if (depth === 1) {
          if (name === 'category') category = { domain: attrs.domain ?? '', name: '' };
          else if (name === 'wp:comment') {
            inComment = true;
            approved = '';
          } else field = FIELDS[name] ?? null;
        } else if (inComment && depth === 2 && name === 'wp:comment_approved') readingApproved = true;
      },
      ontext(text) {
        if (!item) return;
        if (field && depth === 1) {
          const cur = item[field] as string;
          if (cur.length < FIELD_MAX) (item[field] as string) = cur + text;
        } else if (category && depth === 1) category.name += text;
        else if (readingApproved) approved += text;
      },
      onclosetag(name, implied) {
        // htmlparser2 closes what is still open at the end of the input (implied): not an end the file wrote.
        if (name === 'rss' && !item && !implied) sawEnd = true;
        if (!item) return;
        if (depth === 0 && name === 'item') {
          done.push(wordpressItem(item, opts));
          item = null;
          return;
        }
        if (depth === 1) {
          if (category) item.categories.push(category);
          if (inComment && approved.trim() === '1') item.approvedComments += 1;
          category = null;
          field = null;
          inComment = false;
        }
        if (readingApproved && name === 'wp:comment_approved') readingApproved = false;
        depth = Math.max(0, depth - 1);
      },
    },
    { xmlMode: true, decodeEntities: true, recognizeCDATA: true },
  );
  const notWxr = () =>
    new ArchiveError('unreadable', `${what || 'The file'} is not a WordPress export (WXR: an RSS document with the wp: namespace of wordpress.org/export).`);
  let decoder: TextDecoder | null = null;
  // The container's errors (a truncated ZIP, a bomb) come through as they are: each is already a 422.
  for await (const c of input) {
    const chunk = c as Buffer;
    decoder ??= decoderFor(chunk);
    parser.write(decoder.decode(chunk, { stream: true }));
    // Nothing is yielded before the document shows it is WordPress's.
    if (sawRss ? !sawWp : parser.endIndex > 65_536) throw notWxr();
    while (done.length) yield done.shift()!;
  }
  if (decoder) parser.write(decoder.decode());
  parser.end();
  if (!sawRss || !sawWp) throw notWxr();
  // A cut file would import a part silently: an export ends with </rss>.
  if (!sawEnd) throw new ArchiveError('unreadable', `${what || 'The WordPress export'} ends before its </rss>: it is truncated.`);
  while (done.length) yield done.shift()!;
}
