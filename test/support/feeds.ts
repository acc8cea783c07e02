// A tiny RSS 2.0 document for local fake feeds (tests of ingest-driven features).
export interface FeedItem {
  guid: string;
  title: string;
  description: string;
  link: string;
  pubDate: Date;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function rssFeed(title: string, items: FeedItem[]): string {
  const body = items
    .map(
      (i) =>
        `<item><guid>${esc(i.guid)}</guid><title>${esc(i.title)}</title><link>${esc(i.link)}</link>` +
        `<description>${esc(i.description)}</description><pubDate>${i.pubDate.toUTCString()}</pubDate></item>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>${esc(title)}</title><link>https://blog.example.org/</link><description>${esc(title)}</description>${body}</channel></rss>`;
}

/**
 * Bytes of `text` in a legacy encoding (windows-1252, GBK, Shift_JIS, …), made by inverting Node's
 * own decoder over every one- and two-byte sequence, so that tests can write feeds as their
 * publishers do without an encoder package. Throws on a character the encoding cannot write.
 */
export function encodeLegacy(encoding: string, text: string): Buffer {
  const table = tables.get(encoding) ?? buildTable(encoding);
  tables.set(encoding, table);
  const out: number[] = [];
  for (const ch of text) {
    const bytes = table.get(ch);
    if (!bytes) throw new Error(`${encoding} cannot write ${JSON.stringify(ch)}`);
    out.push(...bytes);
  }
  return Buffer.from(out);
}

const tables = new Map<string, Map<string, number[]>>();

function buildTable(encoding: string): Map<string, number[]> {
  const d = new TextDecoder(encoding, { fatal: true });
  const table = new Map<string, number[]>();
  const put = (bytes: number[]) => {
    try {
      const ch = d.decode(new Uint8Array(bytes));
      if ([...ch].length === 1 && !table.has(ch)) table.set(ch, bytes);
    } catch {
      // not a character of the encoding
    }
  };
  for (let b = 0; b < 256; b++) put([b]);
  for (let lead = 0x81; lead <= 0xfe; lead++) for (let trail = 0x40; trail <= 0xfe; trail++) put([lead, trail]);
  return table;
}

/** An RSS 2.0 document as a publisher writes it: its XML declaration (with `encoding` when given) and items. */
export function rssText(o: { encoding?: string; title: string; items: Array<{ guid: string; title: string; description: string; pubDate: string }> }): string {
  const decl = o.encoding ? `<?xml version="1.0" encoding="${o.encoding}"?>` : '<?xml version="1.0"?>';
  const items = o.items
    .map(
      (i) =>
        `<item><guid isPermaLink="false">${esc(i.guid)}</guid><title>${esc(i.title)}</title><description>${esc(i.description)}</description><pubDate>${i.pubDate}</pubDate></item>`,
    )
    .join('\n');
  return `${decl}\n<rss version="2.0"><channel><title>${esc(o.title)}</title><link>https://blog.example.org/</link><description>${esc(o.title)}</description>\n${items}\n</channel></rss>\n`;
}

/** A JSON Feed 1.1 document (https://www.jsonfeed.org/version/1.1/) with `n` items, attachments on every third. */
export function jsonFeed(n: number, version = 'https://jsonfeed.org/version/1.1'): Record<string, unknown> {
  return {
    version,
    title: 'Ada’s podcast',
    home_page_url: 'https://pod.example.org/',
    feed_url: 'https://pod.example.org/feed.json',
    authors: [{ name: 'Ada Lovelace', url: 'https://pod.example.org/about' }],
    language: 'en',
    items: Array.from({ length: n }, (_, i) => ({
      id: `https://pod.example.org/episodes/${i}`,
      url: `https://pod.example.org/episodes/${i}`,
      title: `Episode ${i}: engines 🚂`,
      ...(i % 2 ? { content_text: `Plain notes for ${i} <not a tag> — 日本語` } : { content_html: `<p>Notes for <b>${i}</b> &amp; more — 日本語</p>` }),
      date_published: new Date(Date.UTC(2024, 0, 1) + i * 86_400_000).toISOString().replace('.000Z', '+00:00'),
      authors: [{ name: 'Ada Lovelace' }],
      tags: ['engines'],
      ...(i % 3 === 0
        ? {
            attachments: [
              {
                url: `https://cdn.example.org/ep${i}.mp3`,
                mime_type: 'audio/mpeg',
                title: `Episode ${i} audio`,
                size_in_bytes: 1234567,
                duration_in_seconds: 1800,
              },
              { url: `https://cdn.example.org/ep${i}.jpg`, mime_type: 'image/jpeg', title: 'Cover: an engine at dawn' },
            ],
          }
        : {}),
    })),
  };
}
