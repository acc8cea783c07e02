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
