// Feeds as publishers write them (issue 24): encodings decided by the XML rules (BOM, then the
// HTTP charset, then the XML declaration) and pages by the WHATWG rules (BOM, HTTP, <meta
// charset>); dates with day and month names in other languages; JSON Feed 1.0/1.1; documents
// that are not feeds refused as such.
import { describe, expect, it } from 'vitest';
import { feedDate, monthOf } from '../../server/adapters/feed-dates.js';
import { parseFeed, readFeedDocument } from '../../server/adapters/rss.js';
import { AdapterError } from '../../server/adapters/types.js';
import { decodeHtml, decodeXml, metaCharset } from '../../server/lib/charset.js';
import { encodeLegacy, jsonFeed, rssText } from '../support/feeds.js';

const NOW = new Date('2026-11-26T10:00:00.000Z');

/** Text each encoding can write, in the scripts its publishers use. */
const SAMPLES: Array<{ label: string; whatwg: string; title: string; body: string }> = [
  { label: 'ISO-8859-1', whatwg: 'windows-1252', title: 'Café à la française', body: 'Ação, coração e pão; naïve façade, ½ °C, «guillemets»' },
  { label: 'windows-1252', whatwg: 'windows-1252', title: 'Smart “quotes” — and €5', body: 'Ellipsis… dagger † and Œuvre, ‘single’' },
  { label: 'GB2312', whatwg: 'gbk', title: '你好，世界', body: '中文博客：今天发布了新版本，速度提高了四倍。' },
  { label: 'Shift_JIS', whatwg: 'shift_jis', title: '日本語のブログ', body: 'こんにちは、世界。新しいバージョンを公開しました！' },
];

const item = (s: (typeof SAMPLES)[number]) => ({ guid: `g-${s.label}`, title: s.title, description: s.body, pubDate: 'Mon, 24 Sep 2018 19:42:40 -0300' });
const read = (body: Buffer, contentType: string | null) => readFeedDocument(body, contentType, NOW);

describe('feed encodings (XML rules)', () => {
  for (const s of SAMPLES) {
    describe(s.label, () => {
      it('declared only in the XML declaration, served without a charset', () => {
        const bytes = encodeLegacy(s.whatwg, rssText({ encoding: s.label, title: s.title, items: [item(s)] }));
        expect(decodeXml(bytes, 'application/rss+xml')).toMatchObject({ encoding: s.whatwg, source: 'xml' });
        const feed = read(bytes, 'application/rss+xml');
        expect(feed.title).toBe(s.title);
        expect(feed.posts[0]!.text).toBe(`${s.title}\n\n${s.body}`);
      });

      it('declared by the HTTP charset, which wins over a wrong XML declaration', () => {
        const bytes = encodeLegacy(s.whatwg, rssText({ encoding: 'UTF-8', title: s.title, items: [item(s)] }));
        expect(decodeXml(bytes, `text/xml; charset="${s.label}"`)).toMatchObject({ encoding: s.whatwg, source: 'http' });
        expect(read(bytes, `application/rss+xml;charset=${s.label.toLowerCase()}`).posts[0]!.text).toBe(`${s.title}\n\n${s.body}`);
      });

      it('the same text as UTF-8 with a BOM, which wins over the HTTP charset and the declaration', () => {
        const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(rssText({ encoding: s.label, title: s.title, items: [item(s)] }))]);
        expect(decodeXml(bytes, `text/xml; charset=${s.label}`)).toMatchObject({ encoding: 'utf-8', source: 'bom' });
        expect(read(bytes, `text/xml; charset=${s.label}`).posts[0]!.text).toBe(`${s.title}\n\n${s.body}`);
      });
    });
  }

  it('UTF-16 with its BOM (little and big endian)', () => {
    const text = rssText({ encoding: 'UTF-16', title: '你好 Café', items: [item(SAMPLES[2]!)] });
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.from(le);
    be.swap16();
    expect(read(le, 'application/xml').title).toBe('你好 Café');
    expect(read(be, 'application/xml').title).toBe('你好 Café');
  });

  it('an unknown label is skipped for the next rule; nothing declared is UTF-8', () => {
    const bytes = encodeLegacy('windows-1252', rssText({ encoding: 'ISO-8859-1', title: 'Café', items: [] }));
    expect(decodeXml(bytes, 'text/xml; charset=x-no-such-thing')).toMatchObject({ encoding: 'windows-1252', source: 'xml' });
    expect(decodeXml(Buffer.from(rssText({ title: 'Café', items: [] })), null)).toMatchObject({
      encoding: 'utf-8',
      source: 'default',
      text: expect.stringContaining('Café'),
    });
  });
});

describe('page encodings (WHATWG rules)', () => {
  const page = (meta: string, s: (typeof SAMPLES)[number]) =>
    `<!doctype html><html><head>${meta}<title>${s.title}</title></head><body><p>${s.body}</p></body></html>`;
  for (const s of SAMPLES) {
    it(`${s.label}: <meta charset>, <meta http-equiv>, the HTTP charset, and a BOM`, () => {
      const meta = encodeLegacy(s.whatwg, page(`<meta charset="${s.label}">`, s));
      expect(decodeHtml(meta, 'text/html')).toMatchObject({ encoding: s.whatwg, source: 'meta', text: expect.stringContaining(s.body) });
      const equiv = encodeLegacy(s.whatwg, page(`<meta http-equiv="Content-Type" content="text/html; charset=${s.label}">`, s));
      expect(decodeHtml(equiv, 'text/html')).toMatchObject({ encoding: s.whatwg, source: 'meta', text: expect.stringContaining(s.body) });
      const http = encodeLegacy(s.whatwg, page('<meta charset="utf-8">', s));
      expect(decodeHtml(http, `text/html; charset=${s.label}`)).toMatchObject({ encoding: s.whatwg, source: 'http', text: expect.stringContaining(s.body) });
      const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(page(`<meta charset="${s.label}">`, s))]);
      expect(decodeHtml(bom, `text/html; charset=${s.label}`)).toMatchObject({ encoding: 'utf-8', source: 'bom', text: expect.stringContaining(s.body) });
    });
  }

  it('skips comments, reads a UTF-16 declaration as UTF-8, and looks only at the first 1024 bytes', () => {
    expect(metaCharset(Buffer.from('<!-- <meta charset="shift_jis"> --><meta charset="gb2312">'))).toBe('gbk');
    expect(metaCharset(Buffer.from('<meta charset="utf-16">'))).toBe('utf-8');
    expect(metaCharset(Buffer.from(`<html>${' '.repeat(1100)}<meta charset="gb2312">`))).toBeNull();
  });
});

describe('feed dates in other languages', () => {
  const cases: Array<[string, string]> = [
    ['Seg, 24 Set 2018 19:42:40 -0300', '2018-09-24T22:42:40.000Z'], // Portuguese
    ['Sáb, 01 Dez 2018 23:59:59 -0200', '2018-12-02T01:59:59.000Z'],
    ['Qua, 14 Fev 2024 08:00:00 -0300', '2024-02-14T11:00:00.000Z'],
    ['lun., 24 sept. 2018 19:42:40 +0200', '2018-09-24T17:42:40.000Z'], // French
    ['jeu., 12 juil. 2018 08:00:00 +0200', '2018-07-12T06:00:00.000Z'],
    ['mer., 3 févr. 2021 10:00:00 +0100', '2021-02-03T09:00:00.000Z'],
    ['Mo, 24 Sep 2018 19:42:40 +0200', '2018-09-24T17:42:40.000Z'], // German
    ['Di, 25 Mär 2025 10:00:00 MEZ', '2025-03-25T09:00:00.000Z'],
    ['Do, 4 Okt 2018 10:00:00 MESZ', '2018-10-04T08:00:00.000Z'],
    ['Mié, 5 Ene 2022 12:00:00 +0100', '2022-01-05T11:00:00.000Z'], // Spanish
    ['lun, 24 sep 2018 19:42:40 +0200', '2018-09-24T17:42:40.000Z'],
    ['dom, 30 dic 2018 23:00:00 -0500', '2018-12-31T04:00:00.000Z'],
    ['Mon, 24 Sep 2018 19:42:40 PDT', '2018-09-25T02:42:40.000Z'], // English, zone names, ISO
    ['Tue, 03 Jun 2008 11:05:30 GMT', '2008-06-03T11:05:30.000Z'],
    ['24 Sep 18 19:42 EST', '2018-09-25T00:42:00.000Z'],
    ['2026-11-01T10:00:00+02:00', '2026-11-01T08:00:00.000Z'],
    ['2018-09-24 19:42:40', '2018-09-24T19:42:40.000Z'],
  ];
  it.each(cases)('%s', (raw, iso) => expect(feedDate(raw)?.toISOString()).toBe(iso));

  it('reads nothing it cannot be sure of: an unknown month or zone, an impossible day, an ambiguous abbreviation', () => {
    for (const raw of [
      'Foo, 24 Xyz 2018 19:42:40 -0300',
      'Mon, 24 Sep 2018 19:42:40 XYZT',
      'Mon, 31 Feb 2018 10:00:00 GMT',
      'yesterday',
      '',
      'jeu., 12 jui 2018',
    ])
      expect(feedDate(raw), raw).toBeNull();
    expect(monthOf('jui')).toBeNull(); // juin or juillet
    expect(monthOf('juil.')).toBe(6);
  });

  it('an item whose date cannot be read is dated at the fetch and says so (unreadDate); one without a date too', () => {
    const xml = rssText({
      title: 'Blog',
      items: [
        { guid: 'a', title: 'Lido', description: 'ok', pubDate: 'Seg, 24 Set 2018 19:42:40 -0300' },
        { guid: 'b', title: 'Not read', description: 'x', pubDate: 'Xyz, 99 Foo 2018' },
        { guid: 'c', title: 'No date', description: 'y', pubDate: '' },
      ],
    });
    const [a, b, c] = parseFeed(xml, NOW).posts;
    expect(a).toMatchObject({ publishedAt: new Date('2018-09-24T22:42:40.000Z'), unreadDate: null });
    expect(b).toMatchObject({ publishedAt: NOW, unreadDate: 'Xyz, 99 Foo 2018' });
    expect(c).toMatchObject({ publishedAt: NOW, unreadDate: '' });
  });
});

describe('JSON Feed', () => {
  it('1.1: items with content_html or content_text, dates, attachments as media (title as alt text), the title', () => {
    const feed = read(Buffer.from(JSON.stringify(jsonFeed(4))), 'application/feed+json');
    expect(feed.title).toBe('Ada’s podcast');
    expect(feed.posts).toHaveLength(4);
    expect(feed.posts[0]).toMatchObject({
      externalId: 'https://pod.example.org/episodes/0',
      url: 'https://pod.example.org/episodes/0',
      text: 'Episode 0: engines 🚂\n\nNotes for 0 & more — 日本語',
      publishedAt: new Date('2024-01-01T00:00:00.000Z'),
      unreadDate: null,
      media: [
        { type: 'audio', url: 'https://cdn.example.org/ep0.mp3', archive_path: null, alt_text: 'Episode 0 audio', width: null, height: null },
        { type: 'image', url: 'https://cdn.example.org/ep0.jpg', archive_path: null, alt_text: 'Cover: an engine at dawn', width: null, height: null },
      ],
    });
    // content_text is plain text: what looks like a tag in it is kept.
    expect(feed.posts[1]!.text).toBe('Episode 1: engines 🚂\n\nPlain notes for 1 <not a tag> — 日本語');
    expect(feed.posts[1]!.media).toEqual([]);
  });

  it('1.0 (author, served as application/json), and the authors as the name of a feed without a title', () => {
    const doc = { ...jsonFeed(2, 'https://jsonfeed.org/version/1'), title: undefined, authors: undefined, author: { name: 'Grace Hopper' } };
    const feed = read(Buffer.from(JSON.stringify(doc)), 'application/json; charset=utf-8');
    expect(feed.title).toBe('Grace Hopper');
    expect(feed.posts).toHaveLength(2);
  });
});

describe('which fields are HTML and which are text, as each format says', () => {
  it('Atom: a construct of type text (the default) is kept as written; html and xhtml are read as HTML, once', () => {
    const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>a &lt; b &amp;amp; c</title>
<entry><id>e1</id><title>Why x&lt;y and &lt;script&gt; matter</title><content>cout&lt;&lt;-1&lt;&lt;endl; &amp;amp; si&lt;ti</content><published>2026-11-01T00:00:00Z</published></entry>
<entry><id>e2</id><title type="text">Plain &lt;b&gt;title&lt;/b&gt;</title><content type="html">&lt;p&gt;Shown: a &amp;lt; b &amp;amp;amp; &lt;b&gt;bold&lt;/b&gt;&lt;/p&gt;</content><published>2026-11-02T00:00:00Z</published></entry>
<entry><id>e3</id><title type="html">An &lt;em&gt;HTML&lt;/em&gt; title &amp;amp; more</title><summary type="text">2 &lt; 3 &amp; 4 &gt; 1</summary><published>2026-11-03T00:00:00Z</published></entry>
</feed>`;
    const feed = read(Buffer.from(atom), 'application/atom+xml');
    expect(feed.title).toBe('a < b &amp; c');
    expect(feed.posts.map((p) => p.text)).toEqual([
      'Why x<y and <script> matter\n\ncout<<-1<<endl; &amp; si<ti',
      'Plain <b>title</b>\n\nShown: a < b &amp; bold',
      'An HTML title & more\n\n2 < 3 & 4 > 1',
    ]);
  });

  it('JSON Feed: title, content_text and summary are text; content_html is HTML', () => {
    const doc = {
      version: 'https://jsonfeed.org/version/1.1',
      title: 'a<b &amp; c',
      items: [
        { id: '1', title: 'x<y', content_html: '<p>a &lt; b &amp;amp; <b>c</b></p>' },
        { id: '2', title: 'Tags <script> as text', content_text: 'si<ti全く気づかなかった &amp; cout<<-1' },
        { id: '3', summary: '<3 &lt;3' },
      ],
    };
    const feed = read(Buffer.from(JSON.stringify(doc)), 'application/feed+json');
    expect(feed.title).toBe('a<b &amp; c');
    expect(feed.posts.map((p) => p.text)).toEqual(['x<y\n\na < b &amp; c', 'Tags <script> as text\n\nsi<ti全く気づかなかった &amp; cout<<-1', '<3 &lt;3']);
  });

  it('Media RSS: a description is plain text unless its type is html', () => {
    const rss = `<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>t</title>
<item><guid>1</guid><title>One</title><description>d</description>
<media:content url="https://cdn.example.org/a.jpg" type="image/jpeg"><media:description>a &lt; b &amp;amp; c</media:description></media:content>
<media:content url="https://cdn.example.org/b.jpg" type="image/jpeg"><media:description type="html">&lt;b&gt;bold&lt;/b&gt; &amp;amp; c</media:description></media:content>
</item></channel></rss>`;
    const [post] = parseFeed(rss, NOW).posts;
    expect(post?.media?.map((m) => m.alt_text)).toEqual(['a < b &amp; c', 'bold & c']);
  });
});

describe('documents that are not feeds', () => {
  const refusal = (body: string, contentType: string | null) => {
    try {
      read(Buffer.from(body), contentType);
    } catch (err) {
      return err as AdapterError;
    }
    throw new Error('expected a refusal');
  };
  it('say what they are and which formats are read, on the handle', () => {
    const html = refusal('<!doctype html><html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head></html>', 'text/html');
    expect(html).toMatchObject({ kind: 'invalid_input', field: 'handle' });
    expect(html.message).toMatch(/is an HTML page, which names its feed at \/feed\.xml/);
    expect(html.message).toMatch(/RSS 2\.0 .*Atom 1\.0 and JSON Feed 1\.0\/1\.1/);
    expect(refusal('{"data": [1, 2]}', 'application/json').message).toMatch(/JSON without a JSON Feed "version" \(keys: data\)/);
    expect(refusal('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml').message).toMatch(/root element is <svg>/);
    expect(refusal('{not json', 'application/feed+json').message).toMatch(/not well-formed JSON/);
  });
});
